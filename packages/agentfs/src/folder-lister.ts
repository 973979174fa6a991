import { isUtf8 } from 'node:buffer';
import * as fs from 'node:fs';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { type FolderListing, listFolder } from './folder-listing.js';
import { describeName } from './skipped-entries.js';

/**
 * Lists the folders a walk asks for, in the order it asks: `request` queues folders, `next` hands back the
 * listing of the oldest one not handed back yet. The walk asks for a folder's sub-folders as soon as it has
 * read the folder, so a lister on another thread lists ahead while the walk compares.
 */
export interface FolderLister {
  request(rels: readonly string[]): void;
  next(): FolderListing;
  close(): void;
  /** How many listings another thread has made so far. */
  listedElsewhere(): number;
}

/** How long a worker may go without handing back a listing before the walk lists the rest itself. */
const STALL_MS = 10_000;

/** A lister that lists each folder when the walk asks for its listing, on the walk's own thread. */
export function listerHere(root: string): FolderLister {
  const queued: string[] = [];
  let head = 0;
  return {
    request: (rels) => void queued.push(...rels),
    next: () => listHere(root, queued[head++]!),
    close: () => undefined,
    listedElsewhere: () => 0,
  };
}

/**
 * A lister that shares the listing (with every entry's lstat, most of a walk's time) with a worker thread: each
 * folder asked for is listed by whichever thread takes it first. The worker takes them in order; the walk takes
 * the one it needs next if the worker has not, and otherwise one further on, waiting only when the worker has
 * taken them all. Falls back to `listerHere` when no worker can be started, and lists the rest itself if the
 * worker stops answering.
 */
export function listerOnWorker(root: string): FolderLister {
  let worker: Worker;
  const channel = new MessageChannel();
  const shared = { answered: new Int32Array(new SharedArrayBuffer(4)), taken: new Uint8Array(new SharedArrayBuffer(TAKEN_SLOTS)) };
  try {
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { root, port: channel.port2, ...shared }, transferList: [channel.port2] });
  } catch {
    channel.port1.close();
    return listerHere(root);
  }
  worker.unref();
  // a worker that failed says so by going quiet: its error is not the walk's (the walk lists the rest itself)
  worker.on('error', () => undefined);
  return new SharedLister(root, worker, channel.port1, shared.answered, shared.taken);
}

/** Folders either thread may take, by the order they were asked for; the worker alone lists those beyond. */
const TAKEN_SLOTS = 1 << 20;

/** What the worker posts: the listing of the folder asked for `index`-th. */
interface Answer {
  index: number;
  listing: FolderListing;
}

class SharedLister implements FolderLister {
  private readonly queued: string[] = [];
  /** The next folder `next` hands back. */
  private head = 0;
  /** Where to look for a folder nobody has taken. */
  private cursor = 0;
  /** Listings made or received ahead of `head`, by index. */
  private readonly ready = new Map<number, FolderListing>();
  private healthy = true;

  constructor(
    private readonly root: string,
    private readonly worker: Worker,
    private readonly port: MessagePort,
    /** How many listings the worker has posted. */
    private readonly answered: Int32Array,
    /** Per folder asked for: 0 nobody has taken it, 1 the walk, 2 the worker. */
    private readonly taken: Uint8Array,
  ) {}

  request(rels: readonly string[]): void {
    const first = this.queued.length;
    this.queued.push(...rels);
    if (this.healthy && rels.length > 0) this.worker.postMessage({ first, rels });
  }

  next(): FolderListing {
    const index = this.head++;
    for (;;) {
      this.drain();
      const listing = this.ready.get(index);
      if (listing !== undefined) {
        this.ready.delete(index);
        return listing.undecoded === true ? listUndecoded(this.root, listing.rel) : listing;
      }
      if (!this.healthy || this.take(index)) return listHere(this.root, this.queued[index]!);
      // the worker has it: list one further on meanwhile, or wait for the worker's next listing
      if (!this.takeAhead(index) && !this.waitForAnswer(index)) this.close();
    }
  }

  close(): void {
    if (!this.healthy) return;
    this.healthy = false;
    this.port.close();
    void this.worker.terminate();
  }

  listedElsewhere(): number {
    return Atomics.load(this.answered, 0);
  }

  private take(index: number): boolean {
    return index < TAKEN_SLOTS && Atomics.compareExchange(this.taken, index, 0, 1) === 0;
  }

  private takeAhead(index: number): boolean {
    for (let at = Math.max(this.cursor, index + 1); at < this.queued.length && at < TAKEN_SLOTS; at++)
      if (this.take(at)) {
        this.cursor = at + 1;
        this.ready.set(at, listHere(this.root, this.queued[at]!));
        return true;
      }
    this.cursor = this.queued.length;
    return false;
  }

  /** Takes in what the worker has posted, without waiting. */
  private drain(): void {
    if (!this.healthy) return;
    for (let got = receiveMessageOnPort(this.port); got !== undefined; got = receiveMessageOnPort(this.port)) {
      const { index, listing } = got.message as Answer;
      if (listing.rel === this.queued[index]) this.ready.set(index, listing);
    }
  }

  /**
   * Waits, without turning the event loop, until the worker has posted folder `index` or posts again; false if
   * it goes quiet too long.
   */
  private waitForAnswer(index: number): boolean {
    const posted = Atomics.load(this.answered, 0);
    // what it posted before `posted` was read is on the port already
    this.drain();
    if (this.ready.has(index)) return true;
    for (let waited = 0; waited < STALL_MS; waited += WAIT_STEP_MS) {
      // returns at once if the worker posted since `posted` was read
      if (Atomics.wait(this.answered, 0, posted, WAIT_STEP_MS) !== 'timed-out') return true;
    }
    return false;
  }
}

const WAIT_STEP_MS = 500;

/**
 * The worker: takes each folder asked for that the walk has not taken, lists it with `listFolder` (its source
 * text, which uses nothing else), posts the listing, then counts it in `answered` and wakes the walk.
 */
const WORKER_SOURCE = `
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const listFolder = ${listFolder.toString()};
const { root, port, answered, taken } = workerData;
parentPort.on('message', ({ first, rels }) => {
  rels.forEach((rel, offset) => {
    const index = first + offset;
    if (index < taken.length && Atomics.compareExchange(taken, index, 0, 2) !== 0) return;
    let listing;
    try {
      listing = listFolder(fs, root, rel);
    } catch (error) {
      listing = { rel, error: { message: String(error && error.message) }, names: [], kinds: new Uint8Array(0), stats: new Float64Array(0), failures: [] };
    }
    port.postMessage({ index, listing }, [listing.stats.buffer, listing.kinds.buffer]);
    Atomics.add(answered, 0, 1);
    Atomics.notify(answered, 0);
  });
});
`;

function listHere(root: string, rel: string): FolderListing {
  const listing = listFolder(fs, root, rel);
  return listing.undecoded === true ? listUndecoded(root, rel) : listing;
}

/**
 * A folder listed as bytes, for a listing with a replacement character in a name: a name that is not UTF-8 is
 * shown with `\xNN` escapes, marked in `notUtf8` and not stat'ed (it is never imported); a name that really
 * holds U+FFFD is listed as any other.
 */
export function listUndecoded(root: string, rel: string): FolderListing {
  return listFolder(fs, root, rel, (raw) =>
    isUtf8(raw) ? { name: raw.toString('utf8'), utf8: true } : { name: describeName(raw), utf8: false },
  );
}
