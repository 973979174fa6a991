import { existsSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { AgentFSError, closedStoreError } from './errors.js';
import { DEFAULT_DIR_MODE } from './mode.js';
import { STORE_DDL } from './schema.js';
import { settleUnsyncedMark } from './unsynced-import.js';

/** Durability of commits: `full` fsyncs every commit (the project mirror, bin.db); `normal` may lose the last commits on power loss but never corrupts (overlays). */
export type Durability = 'full' | 'normal';

/** Milliseconds since the Unix epoch; injected so tests and replays control time. */
export type Clock = () => number;

/** Options shared by everything that opens a database file. */
export interface ConnectionOptions {
  durability?: Durability;
  /** How long a writer waits for another process's lock, in ms (default 5000). */
  busyTimeoutMs?: number;
  readonly?: boolean;
  clock?: Clock;
  /**
   * Extra tables (DDL) a file created by this open starts with, beside the store's: a table that exists from
   * the first byte costs no schema change (a commit, and every prepared statement prepared again) on first use.
   */
  schema?: string;
}

export const DEFAULT_CHUNK_SIZE = 4096;
const SCHEMA_VERSION = '0.4';

/** Templates by the extra schema they hold ('' for none). */
const templates = new Map<string, Buffer>();

/**
 * An empty store as file bytes: the schema (and `schema`'s extra tables) and root inode, marked as a WAL
 * database (header bytes 18 and 19 set to 2). Copying it is several times faster than creating the schema
 * statement by statement, which is what keeps creating an agent overlay cheap.
 */
function storeTemplate(clock: Clock, schema: string): Buffer {
  let template = templates.get(schema);
  if (template === undefined) {
    const db = new Database(':memory:');
    ensureStoreSchema(db, clock);
    if (schema !== '') db.exec(schema);
    template = db.serialize();
    db.close();
    template[18] = 2;
    template[19] = 2;
    templates.set(schema, template);
  }
  return template;
}

/** Creates a new store file from the template; false if a file already exists at `path`. */
function createFromTemplate(path: string, clock: Clock, schema: string): boolean {
  // a file that is there already (every open but the first) is opened as it is: no template is made for it
  if (existsSync(path)) return false;
  try {
    writeFileSync(path, storeTemplate(clock, schema), { flag: 'wx' });
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'ENOENT')
      throw new AgentFSError('ENOENT', 'open', path, 'cannot create the database: its folder does not exist', { cause: error });
    throw new AgentFSError('EINVAL', 'open', path, `cannot create the database (${code ?? (error as Error).message})`, { cause: error });
  }
}

/** Opens (creating if needed) a SQLite file with Cairn's pragmas: WAL, the chosen `synchronous`, a busy timeout. */
export function openConnection(path: string, options: ConnectionOptions = {}): Database.Database {
  let db: Database.Database;
  if (path !== ':memory:' && path !== '' && !options.readonly) {
    const { movedAside } = settleUnsyncedMark(path);
    if (movedAside !== undefined)
      process.emitWarning(
        `${path} was being filled by an import when the machine stopped, before its writes reached the disk; it is kept as ${movedAside}, and the next import fills a new one`,
        { code: 'CAIRN_UNSYNCED_IMPORT' },
      );
    createFromTemplate(path, options.clock ?? Date.now, options.schema ?? '');
  }
  try {
    db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  } catch (cause) {
    throw new AgentFSError('EINVAL', 'open', path, `cannot open the database (${(cause as Error).message})`, { cause });
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    if (path !== ':memory:' && !options.readonly) useWriteAheadLog(db);
    db.pragma(`synchronous = ${options.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
  } catch (cause) {
    db.close();
    throw unreadableDatabase(path, cause);
  }
  refusePreparingWhenClosed(db, path);
  return db;
}

/**
 * Puts the database in WAL mode. A first import that has it alone writes with a rollback journal (see
 * `beginBulkCommits`); a connection opened meanwhile works with that journal, and the import returns the
 * database to the log when it ends.
 */
function useWriteAheadLog(db: Database.Database): void {
  try {
    db.pragma('journal_mode = WAL');
  } catch (error) {
    if (!isBusy(error)) throw error;
  }
}

/** True for SQLite's "database is locked": another connection holds what the statement needs. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Makes a query on a closed connection (the kv store, the tool log, drizzle) fail with EBADF instead of a TypeError. */
function refusePreparingWhenClosed(db: Database.Database, path: string): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    if (!db.open) throw closedStoreError(path);
    return prepare(source);
  }) as typeof db.prepare;
}

/** The error for a file SQLite cannot read as a database; other failures pass through unchanged. */
export function unreadableDatabase(path: string, cause: unknown): unknown {
  const code = (cause as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB') return new AgentFSError('EINVAL', 'open', path, 'not a SQLite database', { cause });
  if (typeof code === 'string' && code.startsWith('SQLITE_CORRUPT'))
    return new AgentFSError('ECORRUPT', 'open', path, `the database file is damaged (${(cause as Error).message})`, { cause });
  return cause;
}

/** Creates the AgentFS tables and the root inode if missing; returns the store's chunk size. */
export function ensureStoreSchema(db: Database.Database, clock: Clock): number {
  const existing = readChunkSize(db);
  if (existing !== undefined && (db.readonly || hasCairnTables(db))) return existing;
  if (db.readonly) throw new AgentFSError('EINVAL', 'open', db.name, 'not an AgentFS database (no fs_config.chunk_size)');
  if (existing === undefined && hasForeignTables(db)) {
    throw new AgentFSError(
      'EINVAL',
      'open',
      db.name,
      'a SQLite database of another application (it has tables but no fs_config); refusing to add AgentFS tables to it',
    );
  }
  const nowSec = Math.floor(clock() / 1000);
  db.transaction(() => {
    db.exec(STORE_DDL);
    db.prepare(`INSERT OR IGNORE INTO fs_config (key, value) VALUES ('chunk_size', ?)`).run(String(DEFAULT_CHUNK_SIZE));
    db.prepare(`INSERT OR IGNORE INTO fs_config (key, value) VALUES ('schema_version', ?)`).run(SCHEMA_VERSION);
    db.prepare(
      `INSERT OR IGNORE INTO fs_inode (ino, mode, nlink, uid, gid, size, atime, mtime, ctime) VALUES (1, ?, 1, 0, 0, 0, ?, ?, ?)`,
    ).run(DEFAULT_DIR_MODE, nowSec, nowSec, nowSec);
  }).immediate();
  const chunkSize = readChunkSize(db);
  if (chunkSize === undefined || chunkSize <= 0) {
    throw new AgentFSError('ECORRUPT', 'open', undefined, `fs_config.chunk_size is not a positive integer`);
  }
  return chunkSize;
}

function readChunkSize(db: Database.Database): number | undefined {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fs_config'`).get();
  if (table === undefined) return undefined;
  const row = db.prepare(`SELECT value FROM fs_config WHERE key = 'chunk_size'`).get() as { value: string } | undefined;
  if (row === undefined) return undefined;
  const parsed = Number.parseInt(row.value, 10);
  return Number.isInteger(parsed) ? parsed : undefined;
}

/** True when the database holds a table that is neither SQLite's, AgentFS's nor Cairn's. */
function hasForeignTables(db: Database.Database): boolean {
  const ours = ['sqlite_*', 'fs_*', 'kv_*', 'tool_*', 'cairn_*'].map((pattern) => `name NOT GLOB '${pattern}'`).join(' AND ');
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND ${ours} LIMIT 1`).get() !== undefined;
}

function hasCairnTables(db: Database.Database): boolean {
  return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cairn_merge_base'`).get() !== undefined;
}
