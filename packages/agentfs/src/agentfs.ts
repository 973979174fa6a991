import type Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import type { Clock, ConnectionOptions } from './connection.js';
import { ensureStoreSchema, openConnection, unreadableDatabase } from './connection.js';
import { InodeStore } from './inode-store.js';
import { KvStore } from './kv-store.js';
import { StoreFileSystem } from './store-fs.js';
import { ToolCalls } from './tool-calls.js';

/** Options for `AgentFS.open`: durability (`full` by default), busy timeout, read-only, injected clock. */
export type OpenOptions = ConnectionOptions;

/** One AgentFS database: its file system, key-value store and tool-call log. All calls are synchronous. */
export class AgentFS {
  readonly path: string;
  readonly fs: StoreFileSystem;
  readonly kv: KvStore;
  readonly tools: ToolCalls;
  /** The raw connection, for callers that need a transaction across tables. */
  readonly db: Database.Database;
  /** A drizzle handle on the same connection. */
  readonly orm: BetterSQLite3Database;
  readonly clock: Clock;

  private constructor(path: string, db: Database.Database, clock: Clock) {
    this.path = path;
    this.db = db;
    this.clock = clock;
    const chunkSize = ensureStoreSchema(db, clock);
    this.orm = drizzle({ client: db });
    this.fs = new StoreFileSystem(new InodeStore(db, chunkSize, clock));
    this.kv = new KvStore(this.orm);
    this.tools = new ToolCalls(this.orm);
  }

  /** Opens (creating if missing) the database at `path`; `:memory:` gives a private in-memory store. */
  static open(path: string, options: OpenOptions = {}): AgentFS {
    const clock = options.clock ?? Date.now;
    const db = openConnection(path, options);
    try {
      return new AgentFS(path, db, clock);
    } catch (error) {
      db.close();
      throw unreadableDatabase(path, error);
    }
  }

  /** Runs `fn` in one transaction on this database. */
  transaction<T>(fn: () => T): T {
    return this.fs.transaction(fn);
  }

  /** False once `close` has run. */
  get isOpen(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
