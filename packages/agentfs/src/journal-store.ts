import { decodeCanonical, encodeCanonical, type JournalEntry, type JournalKind, type JournalStore } from '@cairn/air';
import type Database from 'better-sqlite3';
import { AgentFSError } from './errors.js';

/** The tables a journal may live in: an agent's own, and the one of a run its process did not live to finish. */
export type JournalTable = 'cairn_journal' | 'cairn_interrupted_journal';

/** The DDL of a journal table (for a store created with it: see `ConnectionOptions.schema`). */
export function journalTableDdl(table: JournalTable = 'cairn_journal'): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, body BLOB NOT NULL,
      prev TEXT, hash TEXT NOT NULL)`;
}

/**
 * An AIR journal kept in a store's `cairn_journal` table (or `table`): one row per entry, the body as canonical
 * CBOR. Rows are only ever inserted; `Journal.open` re-verifies the whole chain when it reads them back (which is
 * also what catches a repeated entry, so the hash column carries no index of its own: each append writes one
 * row, not a row and an index entry).
 */
export class SqliteJournalStore implements JournalStore {
  private readonly insert;
  private readonly select;

  constructor(db: Database.Database, table: JournalTable = 'cairn_journal') {
    db.exec(journalTableDdl(table));
    this.insert = db.prepare(`INSERT INTO ${table} (seq, kind, body, prev, hash) VALUES (?, ?, ?, ?, ?)`);
    this.select = db.prepare(`SELECT seq, kind, body, prev, hash FROM ${table} ORDER BY seq`);
  }

  append(entry: JournalEntry): void {
    try {
      this.insert.run(entry.seq, entry.kind, encodeCanonical(entry.body), entry.prev, entry.hash);
    } catch (cause) {
      throw new AgentFSError(
        'EEXIST',
        'journal.append',
        String(entry.seq),
        `journal entry ${entry.seq} could not be appended: ${(cause as Error).message}`,
        { cause },
      );
    }
  }

  *entries(): Iterable<JournalEntry> {
    for (const row of this.select.iterate() as Iterable<{ seq: number; kind: string; body: Buffer; prev: string | null; hash: string }>) {
      yield {
        seq: row.seq,
        kind: row.kind as JournalKind,
        body: decodeCanonical(row.body),
        prev: row.prev as JournalEntry['prev'],
        hash: row.hash as JournalEntry['hash'],
      };
    }
  }
}
