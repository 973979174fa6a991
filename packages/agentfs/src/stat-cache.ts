import type Database from 'better-sqlite3';

/**
 * How much older than the moment its bytes were compared a file's last change must be before its stat can
 * vouch for them. A file changed twice within one tick of the file system's clock (a jiffy on Linux, a second
 * on some file systems, two on FAT) keeps its size, mtime and ctime, so an entry changed less than this before
 * it was checked is "racily clean", as git says, and is compared byte for byte again at the next import.
 */
export const RACY_MARGIN_MS = 2000;

const DDL = `CREATE TABLE IF NOT EXISTS cairn_stat_cache (ino INTEGER PRIMARY KEY, dev INTEGER NOT NULL,
  disk_ino INTEGER NOT NULL, ctime_us INTEGER NOT NULL, checked_at INTEGER NOT NULL)`;

/** A file's ctime in whole microseconds, the precision the cache keeps. */
export function ctimeUsOf(stats: { ctimeMs: number }): number {
  return Math.round(stats.ctimeMs * 1000);
}

/** True when a file changed too close to `checkedAt` for its stat to tell a later change in the same tick from none. */
export function isRacy(stats: { mtimeMs: number; ctimeMs: number }, checkedAt: number): boolean {
  return Math.max(stats.mtimeMs, stats.ctimeMs) >= checkedAt - RACY_MARGIN_MS;
}

/**
 * The stat cache of a project mirror (`cairn_stat_cache`), one row per store inode whose bytes were last found
 * equal to a file on disk, as git's index keeps one per path: with the store's own size, mtime and mode it lets
 * an import skip a file without reading it. Rows of inodes that are gone are harmless (inode numbers are never
 * reused) and are dropped after imports that remove entries.
 */
export class StatCache {
  private upsert: Database.Statement | undefined;

  constructor(private readonly db: Database.Database) {}

  /** True when the table exists (a store never imported into has none). */
  static exists(db: Database.Database): boolean {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cairn_stat_cache'").get() !== undefined;
  }

  /** Records that store inode `ino` holds the bytes of the disk file `stats` describes, compared at `checkedAt`. */
  record(ino: number, stats: { dev: number; ino: number; ctimeMs: number }, checkedAt: number): void {
    if (this.upsert === undefined) {
      this.db.exec(DDL);
      this.upsert = this.db.prepare(
        'INSERT OR REPLACE INTO cairn_stat_cache (ino, dev, disk_ino, ctime_us, checked_at) VALUES (?, ?, ?, ?, ?)',
      );
    }
    this.upsert.run(ino, stats.dev, stats.ino, ctimeUsOf(stats), checkedAt);
  }

  /** Drops the rows of inodes the store no longer has. */
  forgetRemoved(): void {
    if (StatCache.exists(this.db)) this.db.exec('DELETE FROM cairn_stat_cache WHERE ino NOT IN (SELECT ino FROM fs_inode)');
  }
}
