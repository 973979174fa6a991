import type Database from 'better-sqlite3';
import type { EntryState } from './entry-state.js';

/** A path's merge base: what the base held when the overlay first changed it. */
export interface MergeBaseRecord {
  path: string;
  state: EntryState;
}

/** A row of `cairn_merge_base` (its columns as `schema.ts` declares them), less the time it was kept. */
interface MergeBaseRow {
  path: string;
  kind: EntryState['kind'];
  mode: number;
  hash: string | null;
  content: Buffer | null;
}

const COLUMNS = 'path, kind, mode, hash, content';

/**
 * The `cairn_merge_base` table of an overlay's upper store. Its statements are plain SQL prepared on first use, as
 * the inode store's are: an agent's every write asks two of them, and listing changes reads them all.
 */
export class MergeBaseLog {
  private readonly db: Database.Database;
  private readonly clock: () => number;
  private prepared: ReturnType<typeof prepareStatements> | undefined;

  constructor(db: Database.Database, clock: () => number) {
    this.db = db;
    this.clock = clock;
  }

  private get statements(): ReturnType<typeof prepareStatements> {
    this.prepared ??= prepareStatements(this.db);
    return this.prepared;
  }

  has(path: string): boolean {
    return this.statements.has.get(path) !== undefined;
  }

  get(path: string): EntryState | undefined {
    const row = this.statements.get.get(path) as MergeBaseRow | undefined;
    return row === undefined ? undefined : toState(row);
  }

  /** Records `state` for `path` unless a merge base is already kept for it. */
  keep(path: string, state: EntryState): void {
    const hasBytes = state.kind === 'file' || state.kind === 'symlink';
    this.statements.keep.run(
      path,
      state.kind,
      state.kind === 'absent' ? 0 : state.mode,
      hasBytes ? state.hash : null,
      hasBytes ? state.content : null,
      Math.floor(this.clock() / 1000),
    );
  }

  forget(path: string): void {
    this.statements.forget.run(path);
  }

  /** The path of every record, in path order (nothing else is read). */
  paths(): string[] {
    return this.statements.paths.all() as string[];
  }

  /** Every record, in path order. */
  all(): MergeBaseRecord[] {
    return (this.statements.all.all() as MergeBaseRow[]).map((row) => ({ path: row.path, state: toState(row) }));
  }
}

function prepareStatements(db: Database.Database) {
  return {
    has: db.prepare('SELECT 1 FROM cairn_merge_base WHERE path = ?').pluck(),
    get: db.prepare(`SELECT ${COLUMNS} FROM cairn_merge_base WHERE path = ?`),
    keep: db.prepare(
      'INSERT INTO cairn_merge_base (path, kind, mode, hash, content, captured_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    forget: db.prepare('DELETE FROM cairn_merge_base WHERE path = ?'),
    paths: db.prepare('SELECT path FROM cairn_merge_base ORDER BY path').pluck(),
    all: db.prepare(`SELECT ${COLUMNS} FROM cairn_merge_base ORDER BY path`),
  };
}

function toState(row: MergeBaseRow): EntryState {
  switch (row.kind) {
    case 'absent':
      return { kind: 'absent' };
    case 'dir':
      return { kind: 'dir', mode: row.mode };
    default:
      return { kind: row.kind, mode: row.mode, hash: row.hash ?? '', content: row.content ?? Buffer.alloc(0) };
  }
}
