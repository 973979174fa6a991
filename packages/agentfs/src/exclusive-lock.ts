import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AgentFSError } from './errors.js';

const held = new Map<string, number>();

/**
 * Runs `fn` while holding an exclusive lock shared by every process that opens the same lock file: an
 * `EXCLUSIVE` transaction on a small SQLite file, so a second process waits (up to `timeoutMs`, default
 * two minutes) and the operating system releases the lock when a holder dies. Re-entrant within a process.
 * `fn` must be synchronous: the lock is released when it returns or throws.
 */
export function withExclusiveLock<T>(lockPath: string, fn: () => T, options: { timeoutMs?: number } = {}): T {
  const depth = held.get(lockPath) ?? 0;
  if (depth > 0) {
    held.set(lockPath, depth + 1);
    try {
      return fn();
    } finally {
      held.set(lockPath, depth);
    }
  }
  const db = beginExclusive(lockPath, Math.max(0, Math.trunc(options.timeoutMs ?? 120_000)));
  if (db === 'busy') throw new AgentFSError('EBUSY', 'lock', lockPath, 'another process held the lock for too long');
  held.set(lockPath, 1);
  try {
    return fn();
  } finally {
    held.delete(lockPath);
    try {
      db.exec('ROLLBACK');
    } finally {
      db.close();
    }
  }
}

/** A lock held until `release` is called or the process ends. */
export interface HeldLock {
  release(): void;
}

/**
 * Takes the lock at `lockPath` without waiting and holds it until `release` (or until the process ends, when
 * the operating system lets it go): undefined when another holder has it, in this process or another. This is
 * how one process claims a role for its lifetime (one daemon per project) with nothing stale left by a crash.
 */
export function tryHoldExclusiveLock(lockPath: string): HeldLock | undefined {
  const db = beginExclusive(lockPath, 0);
  if (db === 'busy') return undefined;
  const lock: HeldLock = {
    release() {
      if (!holding.delete(lock)) return;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
  holding.add(lock);
  return lock;
}

/** Locks held for good: kept reachable here, since a connection the garbage collector closes lets its lock go. */
const holding = new Set<HeldLock>();

/**
 * Opens the lock file and begins an `EXCLUSIVE` transaction on it, waiting up to `timeoutMs`: the connection
 * that holds the lock, or `busy`. The lock file holds nothing but the lock, so one that is not a database is
 * replaced.
 */
function beginExclusive(lockPath: string, timeoutMs: number): Database.Database | 'busy' {
  let db: Database.Database;
  try {
    db = new Database(lockPath);
  } catch (cause) {
    throw new AgentFSError('EINVAL', 'lock', lockPath, `cannot open the lock file (${(cause as Error).message})`, { cause });
  }
  try {
    db.pragma(`busy_timeout = ${timeoutMs}`);
    db.exec('BEGIN EXCLUSIVE');
    return db;
  } catch (cause) {
    db.close();
    const code = (cause as { code?: string }).code;
    if (code === 'SQLITE_BUSY') return 'busy';
    if (code !== 'SQLITE_NOTADB' && !code?.startsWith('SQLITE_CORRUPT')) throw cause;
    rmSync(lockPath, { force: true });
    return beginExclusive(lockPath, timeoutMs);
  }
}
