import type Database from 'better-sqlite3';
import { isBusy } from './connection.js';
import { markUnsynced } from './unsynced-import.js';

/** How many pages the write-ahead log may reach during a bulk write before SQLite copies it into the database (64 MiB at 4 KiB). */
const BULK_CHECKPOINT_PAGES = 16384;

/** Options of `beginBulkCommits`. */
export interface BulkCommitOptions {
  /** The store holds no entries yet (a first import): nothing in it is older than what the import writes. */
  fresh?: boolean;
}

/**
 * Switches a connection to bulk writing for an import's batches and returns what switches it back.
 *
 * A first import into a store no other connection has open leaves the write-ahead log for a rollback journal
 * while it writes. With the log, every page is written twice: into the log, then copied into the database. With a
 * rollback journal the pages the import adds go to the database file once, and only the few it changes are
 * journaled first. Commits keep the connection's `synchronous` (a rollback journal with `FULL` is as safe from a
 * power cut as the log). Switching back returns to the log. Where another connection opened the database
 * meanwhile, it stays with the rollback journal until the next connection that opens it alone. When the database
 * holds nothing at all yet (no entry, nothing of anyone else's), its commits do not wait for the disk either: a
 * mark beside it says so until a child process has synced it, after the import (see `unsynced-import.ts`).
 *
 * Otherwise commits no longer wait for the disk (`synchronous = NORMAL`) and the write-ahead log is copied into
 * the database every few tens of megabytes instead of every four, so a page rewritten by many batches reaches
 * the database file once. A power cut can lose only the last batches, never corrupt: the mirror is rebuilt from
 * the working tree by the next import, the stat cache rows leave with the entries they vouch for, and any later
 * commit with `synchronous = FULL` (an accept's) syncs the log and with it every batch before it. Switching back
 * restores both settings and checkpoints what the import wrote, so the log does not stay large.
 */
export function beginBulkCommits(db: Database.Database, options: BulkCommitOptions = {}): () => void {
  if (options.fresh === true && leaveWriteAheadLog(db)) {
    const settle = holdsNothing(db) ? markUnsynced(db.name) : undefined;
    if (settle === undefined) return () => returnToWriteAheadLog(db);
    const synchronous = db.pragma('synchronous', { simple: true }) as number;
    db.pragma('synchronous = OFF');
    return () => {
      db.pragma(`synchronous = ${synchronous}`);
      returnToWriteAheadLog(db);
      settle();
    };
  }
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  const checkpointPages = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  db.pragma(`wal_autocheckpoint = ${BULK_CHECKPOINT_PAGES}`);
  return () => {
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
    if (!db.inTransaction) db.pragma('wal_checkpoint(PASSIVE)');
  };
}

/**
 * True when no table holds a row but the store's own settings and its root folder: a database only an import
 * is about to fill, with nothing in it a lost write could take (no accept, no journal, no key).
 */
function holdsNothing(db: Database.Database): boolean {
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  return tables.every((table) => {
    if (table === 'fs_config') return true;
    const rows = db
      .prepare(`SELECT count(*) FROM (SELECT 1 FROM "${table.replaceAll('"', '""')}" LIMIT 2)`)
      .pluck()
      .get() as number;
    return rows <= (table === 'fs_inode' ? 1 : 0);
  });
}

/** Switches a file database from its write-ahead log to a rollback journal; false when it is not in WAL mode or not alone. */
function leaveWriteAheadLog(db: Database.Database): boolean {
  if (db.memory || db.readonly || db.inTransaction || db.pragma('journal_mode', { simple: true }) !== 'wal') return false;
  try {
    // another connection (in any process) keeps the log: SQLite refuses at once, without waiting
    return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (error) {
    if (isBusy(error)) return false;
    throw error;
  }
}

function returnToWriteAheadLog(db: Database.Database): void {
  if (db.inTransaction) return;
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    // another connection opened it meanwhile: the next one to open it alone switches it back
    if (!isBusy(error)) throw error;
  }
}
