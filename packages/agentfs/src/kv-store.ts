import { eq, like, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { AgentFSError } from './errors.js';
import { kvStore } from './schema.js';

/** A JSON value as stored in `kv_store.value`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The key-value table of a store; values are JSON. */
export class KvStore {
  private readonly db: BetterSQLite3Database;

  constructor(db: BetterSQLite3Database) {
    this.db = db;
  }

  get<T = JsonValue>(key: string): T | undefined {
    const row = this.db.select({ value: kvStore.value }).from(kvStore).where(eq(kvStore.key, key)).get();
    return row === undefined ? undefined : (parseJson(row.value, key) as T);
  }

  set(key: string, value: unknown): void {
    const text = JSON.stringify(value);
    if (text === undefined) throw new AgentFSError('EINVAL', 'kv.set', key, 'value is not JSON-serialisable');
    this.db
      .insert(kvStore)
      .values({ key, value: text })
      .onConflictDoUpdate({ target: kvStore.key, set: { value: text, updatedAt: sql`(unixepoch())` } })
      .run();
  }

  delete(key: string): void {
    this.db.delete(kvStore).where(eq(kvStore.key, key)).run();
  }

  /** Entries whose key starts with `prefix`, in key order. */
  list(prefix = ''): { key: string; value: JsonValue }[] {
    const pattern = prefix.replace(/[\\%_]/g, (c) => '\\' + c) + '%';
    return this.db
      .select({ key: kvStore.key, value: kvStore.value })
      .from(kvStore)
      .where(sql`${like(kvStore.key, pattern)} ESCAPE '\\'`)
      .orderBy(kvStore.key)
      .all()
      .map((row) => ({ key: row.key, value: parseJson(row.value, row.key) }));
  }
}

function parseJson(text: string, key: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (cause) {
    throw new AgentFSError('ECORRUPT', 'kv.get', key, 'stored value is not JSON', { cause });
  }
}
