import type { AgentFS, PreImage } from '@cairn/agentfs';
import { createTables, decodePreImages, encodePreImages, type StateSummary, summaryOf } from '@cairn/agentfs';
import { CairnError } from '@cairn/api';

/** An operation that changes stable.db and the working tree together. */
export type PendingKind = 'accept' | 'undo';

/** One path an operation has committed to stable.db and still owes the working tree. */
export interface PendingWrite {
  opId: string;
  agentId: string;
  kind: PendingKind;
  path: string;
  /** What the disk held when the operation was decided: its kind, mode and hash (the bytes are not kept). */
  expected: StateSummary;
  /** For an undo: the accept's pre-image, so the proposal can be put back in the agent's overlay. */
  image?: PreImage;
}

/** An accept as stable.db keeps it, for undo. */
export interface AcceptRecord {
  id: string;
  agentId: string;
  createdAt: number;
  preImages: PreImage[];
}

const DDL = `
CREATE TABLE IF NOT EXISTS cairn_pending_writes (
  op_id TEXT NOT NULL, agent_id TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL, expected BLOB NOT NULL, image BLOB,
  PRIMARY KEY (op_id, path)
);
CREATE TABLE IF NOT EXISTS cairn_accepts (
  id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, created_at INTEGER NOT NULL, pre_images BLOB NOT NULL, undone_at INTEGER
);
CREATE INDEX IF NOT EXISTS cairn_accepts_agent ON cairn_accepts (agent_id, created_at);
`;

/**
 * The intent log of operations that span stable.db and the working tree, kept in stable.db itself so the
 * intent commits in the same transaction as the change to stable. Whatever the disk has not received yet
 * is finished (or, where the human has since edited the file, given up in the human's favour) when the
 * project next opens.
 */
export class PendingWrites {
  private readonly db: AgentFS['db'];
  private insert: { run(...params: unknown[]): unknown } | undefined;

  constructor(stable: AgentFS) {
    this.db = stable.db;
    createTables(this.db, DDL);
  }

  /** Records a write an operation owes the disk. */
  add(write: PendingWrite): void {
    const image = write.image === undefined ? null : Buffer.from(encodePreImages([write.image]));
    const expected = Buffer.from(JSON.stringify(summaryOf(write.expected)), 'utf8');
    this.insert ??= this.db.prepare(
      'INSERT OR REPLACE INTO cairn_pending_writes (op_id, agent_id, kind, path, expected, image) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.insert.run(write.opId, write.agentId, write.kind, write.path, expected, image);
  }

  /** Every pending write, grouped by operation in the order they were added. */
  all(): PendingWrite[] {
    const rows = this.db.prepare('SELECT op_id, agent_id, kind, path, expected, image FROM cairn_pending_writes ORDER BY rowid').all() as {
      op_id: string;
      agent_id: string;
      kind: PendingKind;
      path: string;
      expected: Buffer;
      image: Buffer | null;
    }[];
    return rows.map((row) => {
      const write: PendingWrite = {
        opId: row.op_id,
        agentId: row.agent_id,
        kind: row.kind,
        path: row.path,
        expected: decodeExpected(row.expected, row.path),
      };
      if (row.image !== null) write.image = decodePreImages(row.image)[0]!;
      return write;
    });
  }

  /** Forgets an operation's pending writes (the disk has them). */
  clear(opId: string, paths?: readonly string[]): void {
    if (paths === undefined) this.db.prepare('DELETE FROM cairn_pending_writes WHERE op_id = ?').run(opId);
    else for (const path of paths) this.db.prepare('DELETE FROM cairn_pending_writes WHERE op_id = ? AND path = ?').run(opId, path);
  }

  recordAccept(record: AcceptRecord): void {
    this.db
      .prepare('INSERT INTO cairn_accepts (id, agent_id, created_at, pre_images) VALUES (?, ?, ?, ?)')
      .run(record.id, record.agentId, record.createdAt, Buffer.from(encodePreImages(record.preImages)));
  }

  /** Replaces an accept's pre-images (paths the disk never received are dropped from it). */
  updateAccept(id: string, preImages: readonly PreImage[]): void {
    this.db.prepare('UPDATE cairn_accepts SET pre_images = ? WHERE id = ?').run(Buffer.from(encodePreImages(preImages)), id);
  }

  /** The agent's accepts not yet undone, newest first. */
  openAccepts(agentId: string): AcceptRecord[] {
    const rows = this.db
      .prepare(
        'SELECT id, agent_id, created_at, pre_images FROM cairn_accepts WHERE agent_id = ? AND undone_at IS NULL ORDER BY created_at DESC, rowid DESC',
      )
      .all(agentId) as {
      id: string;
      agent_id: string;
      created_at: number;
      pre_images: Buffer;
    }[];
    return rows.map((row) => ({
      id: row.id,
      agentId: row.agent_id,
      createdAt: row.created_at,
      preImages: decodePreImages(row.pre_images),
    }));
  }

  markUndone(ids: readonly string[], time: number): void {
    for (const id of ids) this.db.prepare('UPDATE cairn_accepts SET undone_at = ? WHERE id = ?').run(time, id);
  }
}

/**
 * An expected state as `add` keeps it: JSON `{ kind, mode?, hash? }`. Rows written before the bytes were left out
 * hold a whole pre-image document instead (`encodePreImages`), whose `before` is the state.
 */
function decodeExpected(bytes: Buffer, path: string): StateSummary {
  const corrupt = (why: string) => new CairnError('CAIRN_CORRUPT', `stable.db's record of a write owed to ${path} is damaged: ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw corrupt('its expected state is not JSON');
  }
  const v = value as { format?: unknown; kind?: unknown; mode?: unknown; hash?: unknown } | null;
  if (typeof v === 'object' && v !== null && v.format !== undefined) return summaryOf(decodePreImages(bytes)[0]!.before);
  if (v?.kind === 'absent') return { kind: 'absent' };
  if (typeof v?.mode !== 'number') throw corrupt('its expected state has no mode');
  if (v.kind === 'dir') return { kind: 'dir', mode: v.mode };
  if ((v.kind === 'file' || v.kind === 'symlink') && typeof v.hash === 'string') return { kind: v.kind, mode: v.mode, hash: v.hash };
  throw corrupt(`its expected state ${JSON.stringify(value)} is not a state`);
}
