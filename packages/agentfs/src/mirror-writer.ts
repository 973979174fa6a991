import { closeSync, constants, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentFS } from './agentfs.js';
import type { ImportSummary } from './import-summary.js';
import { type Dentry, toTimestamp } from './inode-store.js';
import { kindOfMode, modeFor } from './mode.js';
import { type SkippedEntry, unreadableReason } from './skipped-entries.js';
import { StatCache } from './stat-cache.js';
import type { MirrorDir, PlannedEntry, StaleEntry } from './tree-scan.js';

/** A file is opened without following a link and without waiting on a FIFO: what the walk saw may have been replaced since. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The smallest read buffer an import keeps. */
const SCRATCH_BYTES = 256 * 1024;

/** An entry that cannot be imported: recorded, left out of the store, never touched on disk. */
export class Unreadable extends Error {
  constructor(readonly entry: SkippedEntry) {
    super(entry.reason);
  }
}

/**
 * Writes what a walk planned into a store, through its inode layer: each entry goes into the directory the walk
 * found it in, whose inode is confirmed once per batch, so a path is never resolved from the root. Work happens
 * in batches, each an immediate transaction that reads the store afresh, so a change another connection made
 * since the walk is taken into account rather than overwritten. Every file or link read is recorded in the stat
 * cache with the stat the walk saw before reading it, so a change made while it was read shows at the next import.
 */
export class MirrorWriter {
  private batchNumber = 0;
  private readonly cache: StatCache;
  /** Where files are read into: one buffer, reused, since SQLite copies what it is given. */
  private scratch: Buffer | undefined;

  constructor(
    private readonly store: AgentFS,
    private readonly root: string,
    private readonly summary: ImportSummary,
    /** When the import began: the time the racy-timestamp rule compares file times with. */
    private readonly checkedAt: number,
  ) {
    this.cache = new StatCache(store.db);
  }

  /** Runs `fn` as one batch: an immediate transaction (a savepoint inside an outer one). */
  batch<T>(fn: () => T): T {
    const inodes = this.store.fs.inodes;
    const run = this.store.db.transaction(() => {
      this.batchNumber++;
      inodes.validateCache();
      return fn();
    });
    try {
      return run.immediate();
    } catch (error) {
      inodes.invalidate();
      throw inodes.explain(error);
    }
  }

  /** Applies one planned entry; false (the entry recorded in `skipped`) when it cannot be read. */
  apply(entry: PlannedEntry): boolean {
    if (entry.dropped === true) return true;
    try {
      if (entry.kind === 'dir') this.ensureDir(entry.self!);
      else if (entry.kind === 'symlink') this.applyLink(entry);
      else this.applyFile(entry);
      return true;
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      this.summary.skipped.push(error.entry);
      return false;
    }
  }

  /** Takes stale entries out of the store; one said to be gone is kept if it has come back on disk meanwhile. */
  removeStale(entries: readonly StaleEntry[]): void {
    for (const entry of entries) {
      if (entry.gone && existsOnDisk(join(this.root, entry.rel))) continue;
      if (this.store.fs.locate('/' + entry.rel, false) === undefined) continue;
      this.remove(entry.rel);
    }
  }

  /** Takes one path (and what lies below it) out of the store. */
  remove(rel: string): void {
    this.store.fs.rm('/' + rel, { recursive: true });
    this.summary.removed++;
  }

  /** Drops the stat cache's rows of inodes this import removed. */
  forgetRemoved(): void {
    this.cache.forgetRemoved();
  }

  /** The store inode of a directory of the walk, creating it (or replacing what is in its way) when missing. */
  ensureDir(dir: MirrorDir): number {
    if (dir.parent === undefined) return dir.ino!;
    if (dir.confirmedIn === this.batchNumber && dir.ino !== undefined) return dir.ino;
    const parentIno = this.ensureDir(dir.parent);
    const inodes = this.store.fs.inodes;
    const current = inodes.child(parentIno, dir.name);
    if (current !== undefined && kindOfMode(current.mode) === 'dir') {
      if ((current.mode & 0o7777) !== dir.permissions) inodes.setMode(current.ino, modeFor('dir', dir.permissions));
      dir.ino = current.ino;
    } else {
      if (current !== undefined) this.remove(dir.rel);
      dir.ino = inodes.createInode(modeFor('dir', dir.permissions));
      inodes.link(parentIno, dir.name, dir.ino);
      dir.createdIn = this.batchNumber;
      this.summary.added++;
    }
    dir.confirmedIn = this.batchNumber;
    return dir.ino;
  }

  private applyFile(entry: PlannedEntry): void {
    const parentIno = this.ensureDir(entry.dir);
    const stats = entry.stats;
    const content = readDisk(entry.rel, () => readRegularFile(`${this.root}/${entry.rel}`, this.bufferOf(stats.size)));
    const inodes = this.store.fs.inodes;
    const mtime = toTimestamp(stats.mtimeMs);
    const permissions = stats.mode & 0o7777;
    const current = this.childOf(entry.dir, parentIno, entry.name);
    let ino: number;
    if (current !== undefined && kindOfMode(current.mode) === 'file') {
      ino = current.ino;
      const row = inodes.inode(ino);
      if (row.size === content.byteLength && inodes.readData(ino).equals(content)) {
        if (row.mtime !== mtime.sec || row.mtime_nsec !== mtime.nsec) inodes.setMtime(ino, mtime);
        this.summary.unchanged++;
        if (entry.recheck) this.summary.rechecked++;
        else this.summary.bytes += content.byteLength;
      } else {
        inodes.writeData(ino, content, mtime);
        this.summary.updated++;
        this.summary.bytes += content.byteLength;
      }
      if ((row.mode & 0o7777) !== permissions) inodes.setMode(ino, modeFor('file', permissions));
    } else {
      if (current !== undefined) this.remove(entry.rel);
      ino = inodes.createFile(parentIno, entry.name, modeFor('file', permissions), content, mtime);
      this.summary.added++;
      this.summary.bytes += content.byteLength;
    }
    // the stat the walk saw, from before the read: a change since then shows as a different stat next time
    this.cache.record(ino, stats, this.checkedAt);
  }

  /** The scratch buffer cut to `size` bytes, grown when it is smaller. */
  private bufferOf(size: number): Buffer {
    if (this.scratch === undefined || this.scratch.byteLength < size) this.scratch = Buffer.allocUnsafeSlow(Math.max(size, SCRATCH_BYTES));
    return this.scratch.subarray(0, size);
  }

  /** The store's entry `name` in a walked directory; none without asking when this batch created the directory. */
  private childOf(dir: MirrorDir, ino: number, name: string): Dentry | undefined {
    return dir.createdIn === this.batchNumber ? undefined : this.store.fs.inodes.child(ino, name);
  }

  private applyLink(entry: PlannedEntry): void {
    const parentIno = this.ensureDir(entry.dir);
    const target = readDisk(entry.rel, () => readlinkSync(`${this.root}/${entry.rel}`));
    const inodes = this.store.fs.inodes;
    const current = this.childOf(entry.dir, parentIno, entry.name);
    let ino: number;
    if (current !== undefined && kindOfMode(current.mode) === 'symlink') {
      ino = current.ino;
      if (inodes.readlink(ino) === target) {
        this.summary.unchanged++;
        if (entry.recheck) this.summary.rechecked++;
      } else {
        inodes.setSymlink(ino, target);
        this.summary.updated++;
      }
    } else {
      if (current !== undefined) this.remove(entry.rel);
      ino = inodes.createInode(modeFor('symlink'));
      inodes.setSymlink(ino, target);
      inodes.link(parentIno, entry.name, ino);
      this.summary.added++;
    }
    this.cache.record(ino, entry.stats, this.checkedAt);
  }
}

/**
 * Reads a file the walk saw as a regular file into `into`, as many bytes as the walk's stat said (or fewer, if it
 * shrank); what the file holds beyond is left for the next import, which its new stat brings about. A file
 * replaced by a link since is refused (`ELOOP`), and a FIFO is not waited on.
 */
function readRegularFile(path: string, into: Buffer): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    let filled = 0;
    while (filled < into.byteLength) {
      const read = readSync(fd, into, filled, into.byteLength - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return into.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Runs a read of the disk; an error becomes `Unreadable` (an entry removed or replaced meanwhile too). */
function readDisk<T>(rel: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw error;
    const reason =
      code === 'ENOENT'
        ? 'it was removed while it was being imported'
        : code === 'ELOOP'
          ? 'it was replaced while it was being imported'
          : unreadableReason(error);
    throw new Unreadable({ path: rel, reason });
  }
}

function existsOnDisk(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
