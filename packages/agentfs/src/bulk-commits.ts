import type Database from 'better-sqlite3';

/** How many pages the write-ahead log may reach during a bulk write before SQLite copies it into the database (64 MiB at 4 KiB). */
const BULK_CHECKPOINT_PAGES = 16384;

/**
 * Switches a connection to bulk writing for an import's batches and returns what switches it back. Commits no
 * longer wait for the disk (`synchronous = NORMAL`) and the write-ahead log is copied into the database every
 * few tens of megabytes instead of every four, so a page rewritten by many batches reaches the database file
 * once. A power cut can lose only the last batches, never corrupt: the mirror is rebuilt from the working tree
 * by the next import, the stat cache rows leave with the entries they vouch for, and any later commit with
 * `synchronous = FULL` (an accept's) syncs the log and with it every batch before it. Switching back restores
 * both settings and checkpoints what the import wrote, so the log does not stay large.
 */
export function beginBulkCommits(db: Database.Database): () => void {
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
