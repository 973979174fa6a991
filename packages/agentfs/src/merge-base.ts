import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { asc, eq, sql } from 'drizzle-orm';
import type { EntryState } from './entry-state.js';
import { cairnMergeBase } from './schema.js';

/** A path's merge base: what the base held when the overlay first changed it. */
export interface MergeBaseRecord {
  path: string;
  state: EntryState;
}

/** The `cairn_merge_base` table of an overlay's upper store. */
export class MergeBaseLog {
  private readonly db: BetterSQLite3Database;
  private readonly clock: () => number;
  /** The per-path queries, each built and prepared on first use: an agent's every write asks two of them. */
  private prepared: ReturnType<typeof prepareQueries> | undefined;

  constructor(db: BetterSQLite3Database, clock: () => number) {
    this.db = db;
    this.clock = clock;
  }

  private get queries(): ReturnType<typeof prepareQueries> {
    this.prepared ??= prepareQueries(this.db);
    return this.prepared;
  }

  has(path: string): boolean {
    return this.queries.has.get({ path }) !== undefined;
  }

  get(path: string): EntryState | undefined {
    const row = this.queries.get.get({ path });
    return row === undefined ? undefined : toState(row);
  }

  /** Records `state` for `path` unless a merge base is already kept for it. */
  keep(path: string, state: EntryState): void {
    const hasBytes = state.kind === 'file' || state.kind === 'symlink';
    this.queries.keep.run({
      path,
      kind: state.kind,
      mode: state.kind === 'absent' ? 0 : state.mode,
      hash: hasBytes ? state.hash : null,
      content: hasBytes ? state.content : null,
      capturedAt: Math.floor(this.clock() / 1000),
    });
  }

  forget(path: string): void {
    this.queries.forget.run({ path });
  }

  /** The path of every record, in path order (nothing else is read). */
  paths(): string[] {
    return this.db
      .select({ path: cairnMergeBase.path })
      .from(cairnMergeBase)
      .orderBy(asc(cairnMergeBase.path))
      .all()
      .map((row) => row.path);
  }

  /** Every record, in path order. */
  all(): MergeBaseRecord[] {
    return this.db
      .select()
      .from(cairnMergeBase)
      .orderBy(asc(cairnMergeBase.path))
      .all()
      .map((row) => ({ path: row.path, state: toState(row) }));
  }
}

function prepareQueries(db: BetterSQLite3Database) {
  const path = sql.placeholder('path');
  return {
    has: db.select({ path: cairnMergeBase.path }).from(cairnMergeBase).where(eq(cairnMergeBase.path, path)).prepare(),
    get: db.select().from(cairnMergeBase).where(eq(cairnMergeBase.path, path)).prepare(),
    keep: db
      .insert(cairnMergeBase)
      .values({
        path,
        kind: sql.placeholder('kind'),
        mode: sql.placeholder('mode'),
        hash: sql.placeholder('hash'),
        content: sql.placeholder('content'),
        capturedAt: sql.placeholder('capturedAt'),
      })
      .onConflictDoNothing()
      .prepare(),
    forget: db.delete(cairnMergeBase).where(eq(cairnMergeBase.path, path)).prepare(),
  };
}

function toState(row: typeof cairnMergeBase.$inferSelect): EntryState {
  switch (row.kind) {
    case 'absent':
      return { kind: 'absent' };
    case 'dir':
      return { kind: 'dir', mode: row.mode };
    default:
      return { kind: row.kind, mode: row.mode, hash: row.hash ?? '', content: row.content ?? Buffer.alloc(0) };
  }
}
