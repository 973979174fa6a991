import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { withExclusiveLock } from './exclusive-lock.js';
import { processAlive } from './process-alive.js';
import { syncDirectory } from './sync-directory.js';

/**
 * A first import into an empty database writes its batches without waiting for the disk, and a mark beside the
 * database (`<db>-unsynced`) says so until everything it wrote is on the disk.
 *
 * An import of a large tree is mostly waiting for the disk: each batch's commit syncs tens of megabytes, one
 * batch after the other, where `cp -r` of the same tree never waits. When the database holds nothing yet, there
 * is nothing a lost write could take from the user: the import alone fills it. So its commits do not sync
 * (`synchronous = OFF`). A killed process loses nothing by that (its writes are in the operating system's
 * cache); only a crash of the machine, or a power cut, before they reach the disk can leave the database torn.
 *
 * The mark names the machine's boot (Linux's `boot_id`) and the process responsible for the writes. When the
 * import ends, a child process syncs the database's files and then removes the mark, without holding the
 * command up. Whoever opens the database next reads the mark, if one is left:
 * - made in an earlier boot: the machine stopped before the writes were synced, so the database may be torn. It
 *   is moved aside (kept as `<db>.unsynced-<time>`) and a new, empty one takes its place: the next import fills it;
 * - made in this boot by a process that has ended: the writes are all in the operating system's cache. They are
 *   synced and the mark is removed;
 * - made in this boot by a process still running: it is still writing, or syncing. Nothing to do.
 *
 * Where the boot cannot be told (not Linux), an import does not take this path: its commits sync as any other.
 */

/** The mark's file beside the database. */
export function unsyncedMarkPath(dbPath: string): string {
  return `${dbPath}-unsynced`;
}

/** What the mark records: the boot the writes were made in, and the process that answers for them. */
interface UnsyncedMark {
  boot: string;
  pid: number;
}

const BOOT_ID = '/proc/sys/kernel/random/boot_id';

/** The current boot's id, or undefined where the system does not tell it. */
function currentBoot(): string | undefined {
  try {
    const boot = readFileSync(BOOT_ID, 'utf8').trim();
    return boot === '' ? undefined : boot;
  } catch {
    return undefined;
  }
}

/**
 * Marks `dbPath` as about to hold writes that are not synced. Returns what to call once the last of them is
 * written (it syncs them in the background and then removes the mark), or undefined when the machine's boot
 * cannot be told: then the caller's commits must keep syncing.
 */
export function markUnsynced(dbPath: string): (() => void) | undefined {
  const boot = currentBoot();
  if (boot === undefined) return undefined;
  const path = resolve(dbPath);
  writeMark(path, { boot, pid: process.pid });
  return () => syncInBackground(path, boot);
}

/**
 * Settles a mark left beside `dbPath` (see above): does nothing when there is none or its process is still at
 * work; syncs and removes it when its process has ended in this boot; moves a possibly torn database aside when it
 * was made in an earlier boot, and returns where it went.
 */
export function settleUnsyncedMark(dbPath: string): { movedAside?: string } {
  const markPath = unsyncedMarkPath(dbPath);
  if (!existsSync(markPath) || isAtWork(readMark(markPath))) return {};
  // one process settles a mark; the others wait for it, and find the mark gone
  return withExclusiveLock(`${markPath}.lock`, () => {
    const mark = readMark(markPath);
    if (mark === 'absent' || isAtWork(mark)) return {};
    if (mark !== 'unreadable' && mark.boot === currentBoot()) {
      if (syncFiles(dbPath)) rmSync(markPath, { force: true });
      return {};
    }
    // an earlier boot (or a mark left unreadable): what was not synced may be lost, or half written
    const aside = `${dbPath}.unsynced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (const suffix of ['-journal', '-wal', '-shm', '']) if (existsSync(dbPath + suffix)) renameSync(dbPath + suffix, aside + suffix);
    rmSync(markPath, { force: true });
    return { movedAside: aside };
  });
}

/** True when the mark was made in this boot by a process still running: it is still writing, or syncing. */
function isAtWork(mark: UnsyncedMark | 'absent' | 'unreadable'): boolean {
  return typeof mark === 'object' && mark.boot === currentBoot() && processAlive(mark.pid);
}

/** The database's files as they stand: the database, and its journal or its log when there is one. */
function databaseFiles(dbPath: string): string[] {
  return [dbPath, `${dbPath}-journal`, `${dbPath}-wal`].filter((file) => existsSync(file));
}

/**
 * Syncs the database's files from a child process, and waits for it. A child, because closing a descriptor of a
 * database file in this process would release the locks SQLite holds on it here.
 */
function syncFiles(dbPath: string): boolean {
  const result = spawnSync('sync', ['--', ...databaseFiles(dbPath)], { stdio: 'ignore', timeout: 120_000 });
  return result.status === 0;
}

/**
 * Syncs the database's files in a detached child that then removes the mark, so the command that imported need
 * not wait for the disk. The mark names the child first, so nobody else syncs meanwhile: the child waits for a
 * line on its input, which comes once the mark names it (or, if this process dies first, the input's end).
 */
function syncInBackground(dbPath: string, boot: string): void {
  const script = 'read -r _; sync -- "$@" && rm -f -- "$MARK"';
  let child: ReturnType<typeof spawn>;
  try {
    // the database file alone: the import's commits are all in it (the journal goes with each commit, and what
    // comes after the import, in the log, syncs as SQLite syncs it)
    child = spawn('/bin/sh', ['-c', script, 'cairn-sync', dbPath], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MARK: unsyncedMarkPath(dbPath) },
    });
  } catch {
    return; // the mark stays, naming this process: the next opener after it ends syncs
  }
  child.on('error', () => {});
  if (child.pid !== undefined) writeMark(dbPath, { boot, pid: child.pid });
  child.stdin?.on('error', () => {});
  child.stdin?.end('\n');
  child.unref();
}

function writeMark(dbPath: string, mark: UnsyncedMark): void {
  const markPath = unsyncedMarkPath(dbPath);
  const temporary = `${markPath}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w');
  try {
    writeSync(fd, `${JSON.stringify(mark)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, markPath);
  syncDirectory(dirname(markPath));
}

function readMark(markPath: string): UnsyncedMark | 'absent' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(markPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    return 'unreadable';
  }
  try {
    const mark = JSON.parse(text) as Partial<UnsyncedMark>;
    if (typeof mark.boot === 'string' && Number.isSafeInteger(mark.pid)) return { boot: mark.boot, pid: mark.pid! };
  } catch {
    // a mark half written when the machine stopped
  }
  return 'unreadable';
}
