import type Database from 'better-sqlite3';

/**
 * Runs `CREATE … IF NOT EXISTS` DDL when one of the tables or indexes it names is missing, all of it in one
 * immediate transaction: one commit (one fsync) for a new database rather than one per statement, and none,
 * nor any write lock, when everything is there already.
 */
export function createTables(db: Database.Database, ddl: string): void {
  const names = [...ddl.matchAll(/CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX)\s+IF\s+NOT\s+EXISTS\s+([A-Za-z_][A-Za-z0-9_]*)/gi)].map(
    (m) => m[1]!,
  );
  if (names.length > 0) {
    const present = db
      .prepare(`SELECT count(*) FROM sqlite_master WHERE name IN (${names.map(() => '?').join(', ')})`)
      .pluck()
      .get(...names) as number;
    if (present === new Set(names).size) return;
  }
  if (db.inTransaction) db.exec(ddl);
  else db.transaction(() => db.exec(ddl)).immediate();
}
