import type { Stats as DiskStats } from 'node:fs';
import type Database from 'better-sqlite3';
import { ctimeUsOf, isRacy, StatCache } from './stat-cache.js';

/**
 * One entry of a store directory as SQLite hands it over: name, inode, mode, size, mtime (seconds and
 * nanoseconds), then what the stat cache knows of it (device, disk inode, ctime in microseconds, when
 * compared), null where it knows nothing. Kept as the array JSON gives, since most rows are only compared.
 */
export type MirrorRow = [string, number, number, number, number, number, number | null, number | null, number | null, number | null];

/** Column positions in a `MirrorRow`. */
export const ROW = { name: 0, ino: 1, mode: 2, size: 3, mtime: 4, mtimeNsec: 5, dev: 6, diskIno: 7, ctimeUs: 8, checkedAt: 9 } as const;

/**
 * True when the stat cache vouches that a row's entry still holds what `stats` describes on disk: the same file
 * (device and inode), unchanged since (ctime), and not racily clean. Size, mtime and mode are the store's own
 * columns, compared by the caller.
 */
export function cacheVouches(row: MirrorRow, stats: Pick<DiskStats, 'ino' | 'dev' | 'ctimeMs' | 'mtimeMs'>): boolean {
  return (
    row[ROW.diskIno] === stats.ino &&
    row[ROW.dev] === stats.dev &&
    row[ROW.ctimeUs] === ctimeUsOf(stats) &&
    !isRacy(stats, row[ROW.checkedAt] ?? 0)
  );
}

/**
 * Reads a store's entries a directory at a time, joined with the stat cache when it exists, each directory's rows
 * gathered by SQLite into one JSON array (far cheaper to hand to JavaScript than a row object per entry). A whole
 * import asks for every directory at once first (`readAll`: one query grouped by directory); other walks ask
 * directory by directory.
 */
export class MirrorRows {
  private readonly children: Database.Statement;
  private readonly child: Database.Statement;
  private readonly everything: Database.Statement;
  /** Each directory's rows as JSON, after `readAll`; a directory missing from it has no entries. */
  private all: Map<number, string> | undefined;

  constructor(db: Database.Database) {
    const cached = StatCache.exists(db);
    const columns = `d.name, d.ino, i.mode, i.size, i.mtime, i.mtime_nsec${cached ? ', c.dev, c.disk_ino, c.ctime_us, c.checked_at' : ''}`;
    const from = `FROM fs_dentry d JOIN fs_inode i ON i.ino = d.ino${cached ? ' LEFT JOIN cairn_stat_cache c ON c.ino = d.ino' : ''}`;
    this.children = db.prepare(`SELECT json_group_array(json_array(${columns})) ${from} WHERE d.parent_ino = ?`).pluck();
    this.child = db.prepare(`SELECT json_array(${columns}) ${from} WHERE d.parent_ino = ? AND d.name = ?`).pluck();
    this.everything = db.prepare(`SELECT d.parent_ino, json_group_array(json_array(${columns})) ${from} GROUP BY d.parent_ino`).raw(true);
  }

  /** Reads the rows of every directory in one query, for a walk that will ask for each. */
  readAll(): this {
    this.all = new Map(this.everything.all() as [number, string][]);
    return this;
  }

  /** The entries of store directory `ino`, by name. */
  in(ino: number): Map<string, MirrorRow> {
    let json: string | undefined;
    if (this.all === undefined) json = this.children.get(ino) as string;
    else {
      json = this.all.get(ino);
      this.all.delete(ino);
    }
    const out = new Map<string, MirrorRow>();
    if (json !== undefined) for (const row of JSON.parse(json) as MirrorRow[]) out.set(row[ROW.name], row);
    return out;
  }

  /** The entry `name` of store directory `ino`, if there is one. */
  at(ino: number, name: string): MirrorRow | undefined {
    const json = this.child.get(ino, name) as string | undefined;
    return json === undefined ? undefined : (JSON.parse(json) as MirrorRow);
  }
}
