import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** AgentFS v0.4 tables, plus Cairn's `cairn_*` extension tables. The DDL below is what `open` runs. */
export const fsConfig = sqliteTable('fs_config', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const fsInode = sqliteTable('fs_inode', {
  ino: integer('ino').primaryKey({ autoIncrement: true }),
  mode: integer('mode').notNull(),
  nlink: integer('nlink').notNull().default(0),
  uid: integer('uid').notNull().default(0),
  gid: integer('gid').notNull().default(0),
  size: integer('size').notNull().default(0),
  atime: integer('atime').notNull(),
  mtime: integer('mtime').notNull(),
  ctime: integer('ctime').notNull(),
  rdev: integer('rdev').notNull().default(0),
  atimeNsec: integer('atime_nsec').notNull().default(0),
  mtimeNsec: integer('mtime_nsec').notNull().default(0),
  ctimeNsec: integer('ctime_nsec').notNull().default(0),
});

export const fsDentry = sqliteTable(
  'fs_dentry',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    name: text('name').notNull(),
    parentIno: integer('parent_ino').notNull(),
    ino: integer('ino').notNull(),
  },
  (t) => [index('idx_fs_dentry_parent').on(t.parentIno, t.name)],
);

export const fsData = sqliteTable(
  'fs_data',
  {
    ino: integer('ino').notNull(),
    chunkIndex: integer('chunk_index').notNull(),
    data: blob('data', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ino, t.chunkIndex] })],
);

export const fsSymlink = sqliteTable('fs_symlink', {
  ino: integer('ino').primaryKey(),
  target: text('target').notNull(),
});

export const fsWhiteout = sqliteTable('fs_whiteout', {
  path: text('path').primaryKey(),
  parentPath: text('parent_path').notNull(),
  createdAt: integer('created_at').notNull(),
});

export const fsOrigin = sqliteTable('fs_origin', {
  deltaIno: integer('delta_ino').primaryKey(),
  baseIno: integer('base_ino').notNull(),
});

export const kvStore = sqliteTable('kv_store', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: integer('created_at').default(sql`(unixepoch())`),
  updatedAt: integer('updated_at').default(sql`(unixepoch())`),
});

export const toolCalls = sqliteTable('tool_calls', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  parameters: text('parameters'),
  result: text('result'),
  error: text('error'),
  status: text('status').notNull().default('pending'),
  startedAt: integer('started_at').notNull(),
  completedAt: integer('completed_at'),
  durationMs: integer('duration_ms'),
});

/** What an overlay path held in the base when the overlay first changed it: the merge base. */
export const cairnMergeBase = sqliteTable('cairn_merge_base', {
  path: text('path').primaryKey(),
  kind: text('kind', { enum: ['absent', 'file', 'dir', 'symlink'] }).notNull(),
  mode: integer('mode').notNull().default(0),
  hash: text('hash'),
  content: blob('content', { mode: 'buffer' }),
  capturedAt: integer('captured_at').notNull(),
});

/** Retired overlays (bin.db): restorable until collected. */
export const cairnLedger = sqliteTable('cairn_ledger', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  agentId: text('agent_id').notNull(),
  originalPath: text('original_path').notNull(),
  retiredPath: text('retired_path').notNull(),
  reason: text('reason').notNull(),
  retiredAt: integer('retired_at').notNull(),
  restoredAt: integer('restored_at'),
  collectedAt: integer('collected_at'),
});

/**
 * The DDL for a store. `tool_calls` takes the `agentfs-sdk` 0.6 shape (nullable `completed_at`, a `status`
 * column), a superset of the format's, so the SDK can append to a Cairn database and the reverse.
 */
export const STORE_DDL = `
CREATE TABLE IF NOT EXISTS fs_config (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fs_inode (
  ino INTEGER PRIMARY KEY AUTOINCREMENT, mode INTEGER NOT NULL, nlink INTEGER NOT NULL DEFAULT 0,
  uid INTEGER NOT NULL DEFAULT 0, gid INTEGER NOT NULL DEFAULT 0, size INTEGER NOT NULL DEFAULT 0,
  atime INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL, rdev INTEGER NOT NULL DEFAULT 0,
  atime_nsec INTEGER NOT NULL DEFAULT 0, mtime_nsec INTEGER NOT NULL DEFAULT 0, ctime_nsec INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS fs_dentry (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
  parent_ino INTEGER NOT NULL, ino INTEGER NOT NULL, UNIQUE (parent_ino, name));
CREATE INDEX IF NOT EXISTS idx_fs_dentry_parent ON fs_dentry (parent_ino, name);
CREATE TABLE IF NOT EXISTS fs_data (ino INTEGER NOT NULL, chunk_index INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (ino, chunk_index));
CREATE TABLE IF NOT EXISTS fs_symlink (ino INTEGER PRIMARY KEY, target TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fs_whiteout (path TEXT PRIMARY KEY, parent_path TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS idx_fs_whiteout_parent ON fs_whiteout (parent_path);
CREATE TABLE IF NOT EXISTS fs_origin (delta_ino INTEGER PRIMARY KEY, base_ino INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS kv_store (key TEXT PRIMARY KEY, value TEXT NOT NULL,
  created_at INTEGER DEFAULT (unixepoch()), updated_at INTEGER DEFAULT (unixepoch()));
CREATE INDEX IF NOT EXISTS idx_kv_store_created_at ON kv_store (created_at);
CREATE TABLE IF NOT EXISTS tool_calls (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, parameters TEXT,
  result TEXT, error TEXT, status TEXT NOT NULL DEFAULT 'pending', started_at INTEGER NOT NULL,
  completed_at INTEGER, duration_ms INTEGER);
CREATE INDEX IF NOT EXISTS idx_tool_calls_name ON tool_calls (name);
CREATE INDEX IF NOT EXISTS idx_tool_calls_started_at ON tool_calls (started_at);
CREATE TABLE IF NOT EXISTS cairn_merge_base (path TEXT PRIMARY KEY, kind TEXT NOT NULL, mode INTEGER NOT NULL DEFAULT 0,
  hash TEXT, content BLOB, captured_at INTEGER NOT NULL);
`;

export const LEDGER_DDL = `
CREATE TABLE IF NOT EXISTS cairn_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL,
  original_path TEXT NOT NULL, retired_path TEXT NOT NULL, reason TEXT NOT NULL, retired_at INTEGER NOT NULL,
  restored_at INTEGER, collected_at INTEGER);
CREATE INDEX IF NOT EXISTS idx_cairn_ledger_agent ON cairn_ledger (agent_id);
`;
