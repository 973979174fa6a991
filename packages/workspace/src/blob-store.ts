import { createHash } from 'node:crypto';
import type { AgentFS } from '@cairn/agentfs';
import type { Hash } from '@cairn/air';
import { CairnError } from '@cairn/api';

/** `sha256:<hex>` of some bytes, the way AIR names content. */
export function contentHash(bytes: Uint8Array): Hash {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}` as Hash;
}

/** The table of an agent's blobs. */
export const BLOBS_DDL = 'CREATE TABLE IF NOT EXISTS cairn_blobs (hash TEXT PRIMARY KEY, bytes BLOB NOT NULL)';

/** Bytes up to this size stay at hand after `put`, so reading back what was just kept needs no query. */
const RECENT_LIMIT = 1 << 20;

/**
 * Content-addressed bytes in an agent's database (`cairn_blobs`): what the agent read, what the model was
 * asked and answered, the programs it ran. A replay takes results from here instead of the live project.
 */
export class BlobStore {
  private readonly insert;
  private readonly select;
  /** The last bytes kept (a tool returns the file it has just read), so reading them back needs no query. */
  private recent: { hash: Hash; bytes: Uint8Array } | undefined;

  constructor(store: AgentFS) {
    store.db.exec(BLOBS_DDL);
    this.insert = store.db.prepare('INSERT OR IGNORE INTO cairn_blobs (hash, bytes) VALUES (?, ?)');
    this.select = store.db.prepare('SELECT bytes FROM cairn_blobs WHERE hash = ?');
  }

  /**
   * Keeps bytes (or UTF-8 text); returns their hash. `hexHash`, the hex SHA-256 of `content` a caller has just
   * computed from these very bytes, spares computing it again.
   */
  put(content: Uint8Array | string, hexHash?: string): Hash {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const hash = hexHash === undefined || typeof content === 'string' ? contentHash(bytes) : (`sha256:${hexHash}` as Hash);
    this.insert.run(hash, bytes);
    this.recent = bytes.length <= RECENT_LIMIT ? { hash, bytes: new Uint8Array(bytes) } : undefined;
    return hash;
  }

  /** The bytes of a hash, checked against it; `CAIRN_CORRUPT` when missing or altered. */
  get(hash: string): Buffer {
    const held = this.held(hash);
    if (held !== undefined) return Buffer.from(held);
    const row = this.select.get(hash) as { bytes: Buffer } | undefined;
    if (row === undefined) throw new CairnError('CAIRN_CORRUPT', `the agent's database has no blob ${hash}`);
    if (contentHash(row.bytes) !== hash) throw new CairnError('CAIRN_CORRUPT', `the blob ${hash} in the agent's database was altered`);
    return row.bytes;
  }

  text(hash: string): string {
    const held = this.held(hash);
    return held === undefined
      ? this.get(hash).toString('utf8')
      : Buffer.from(held.buffer, held.byteOffset, held.byteLength).toString('utf8');
  }

  /** The bytes last kept (a copy of their own, made as they were hashed), when they are the ones asked for. */
  private held(hash: string): Uint8Array | undefined {
    return this.recent !== undefined && this.recent.hash === hash ? this.recent.bytes : undefined;
  }

  /** JSON kept as a blob. */
  putJson(value: unknown): Hash {
    return this.put(JSON.stringify(value));
  }

  json<T>(hash: string): T {
    return JSON.parse(this.text(hash)) as T;
  }
}
