import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, type Stats, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CairnApi, CairnEvent, SpawnOptions } from '@cairn/api';
import { isCairnError, parseSpawnOptions } from '@cairn/api';
import { watch } from 'chokidar';
import * as v from 'valibot';
import { cairnEventSchema } from './wire-schemas.js';

/** A watcher of the signals folder. */
export interface SignalWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Where a signal that could not be carried out is moved, with a `.reason` file beside it. */
export const FAILED_SIGNALS = 'failed';

/**
 * File signals for tools that can only touch files (as the seeds describe): in the project's signals
 * folder, `spawn-<name>` and `queue-<name>` hold a task (plain text, or JSON `{ task, code?, lang?, model? }`),
 * `accept-<id>` accepts (optionally JSON `{ paths?, force? }`), `reject-<id>` rejects (the file's text is the
 * reason), `event-<name>` holds an event of an agent another process runs (an agent CLI runs in the terminal
 * that spawned it), told to the daemon's listeners (Neovim) as its own. A signal carried out is deleted; one that is malformed or refused is moved to `failed/` with a
 * `<name>.reason` file saying why. Names starting with `.` or ending in `.tmp` are ignored, so a tool can
 * write a temp file and rename it into place.
 */
export function watchSignals(api: CairnApi, dir: string, report: (event: CairnEvent) => void): SignalWatcher {
  mkdirSync(join(dir, FAILED_SIGNALS), { recursive: true });
  let chain = Promise.resolve();
  const watcher = watch(dir, { depth: 0, ignoreInitial: false, ignored: (path) => path !== dir && dirname(path) !== dir });
  watcher.on('add', (path) => {
    const name = basename(path);
    if (name.startsWith('.') || name.endsWith('.tmp')) return;
    chain = chain.then(() => handle(api, dir, name, report));
  });
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      await watcher.close();
      await chain;
    },
  };
}

async function handle(api: CairnApi, dir: string, name: string, report: (event: CairnEvent) => void): Promise<void> {
  const path = join(dir, name);
  let text: string;
  try {
    text = readSignal(path);
  } catch (error) {
    // gone before it was read, or unreadable: nothing to carry out
    if (!(error instanceof SignalError)) return;
    refuse(dir, name, error.message, report);
    return;
  }
  try {
    if (name.startsWith('event-')) report(eventOf(text));
    else await carryOut(api, name, text.trim());
    rmSync(path, { force: true });
  } catch (error) {
    const reason =
      isCairnError(error) || error instanceof SignalError ? error.message : `could not carry out the signal: ${(error as Error).message}`;
    refuse(dir, name, reason, report);
  }
}

/** Moves a signal that was not carried out to `failed/`, with a `.reason` file beside it, and says so. */
function refuse(dir: string, name: string, reason: string, report: (event: CairnEvent) => void): void {
  const path = join(dir, name);
  try {
    renameSync(path, join(dir, FAILED_SIGNALS, name));
    writeFileSync(join(dir, FAILED_SIGNALS, `${name}.reason`), reason + '\n');
  } catch {
    rmSync(path, { force: true });
  }
  report({ type: 'error', time: new Date().toISOString(), code: 'signal', message: `signal ${name}: ${reason}` });
}

class SignalError extends Error {}

/** The largest signal read (a task, or JSON with a program in it). */
const MAX_SIGNAL_BYTES = 4 * 1024 * 1024;

/**
 * A signal's text, read without ever waiting: opened non-blocking and without following a symbolic link, so a
 * FIFO, a device or a link in the signals folder can never stall the daemon; only a regular file of at most
 * `MAX_SIGNAL_BYTES` is read, anything else is refused with `SignalError`.
 */
function readSignal(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new SignalError('a symbolic link is not a signal: only regular files are read');
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new SignalError(`only regular files are read as signals, and this is ${kindOf(stats)}`);
    if (stats.size > MAX_SIGNAL_BYTES) throw new SignalError(`the signal is larger than ${MAX_SIGNAL_BYTES >> 20} MiB`);
    const buffer = Buffer.alloc(stats.size);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isDirectory()) return 'a folder';
  return 'not a regular file';
}

async function carryOut(api: CairnApi, name: string, text: string): Promise<void> {
  const match = /^(spawn|queue|accept|reject)-(.+)$/.exec(name);
  if (match === null) throw new SignalError('unknown signal name (expected spawn-…, queue-…, accept-<id> or reject-<id>)');
  const [, verb, rest] = match as unknown as [string, string, string];
  if (verb === 'spawn' || verb === 'queue') {
    const { task, options } = parseTask(text);
    if (verb === 'spawn') await api.spawn(task, options);
    else await api.queue(task, options);
    return;
  }
  const id = rest.replace(/\.[A-Za-z0-9]+$/, '');
  if (verb === 'reject') {
    await api.reject(id, text === '' ? undefined : text);
    return;
  }
  const options = text === '' ? {} : (parseJson(text) as { paths?: string[]; force?: boolean });
  const outcome = await api.accept(id, options);
  if (!outcome.ok) throw new SignalError(`accept left conflicts in ${outcome.conflicts.map((c) => c.path).join(', ')}`);
}

/** An event from another process: one the daemon's stream could carry (checked as the client checks the stream). */
function eventOf(text: string): CairnEvent {
  const parsed = v.safeParse(cairnEventSchema, parseJson(text));
  if (!parsed.success) throw new SignalError(`not an event: ${v.summarize(parsed.issues).split('\n')[0]}`);
  return parsed.output as CairnEvent;
}

function parseTask(text: string): { task: string; options: SpawnOptions } {
  if (!text.startsWith('{')) {
    if (text === '') throw new SignalError('the signal holds no task');
    return { task: text, options: {} };
  }
  const { task, ...options } = parseJson(text) as Record<string, unknown>;
  if (typeof task !== 'string') throw new SignalError('the JSON needs a "task" text');
  return { task, options: parseSpawnOptions(options) };
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new SignalError("the signal's JSON must be an object");
    return value;
  } catch (error) {
    if (error instanceof SignalError) throw error;
    throw new SignalError(`the signal is not valid JSON: ${(error as Error).message}`);
  }
}
