import { describe, expect, it } from 'vitest';
import { encodeCanonical } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { entryHash, Journal, type JournalEntry, type JournalStore, MemoryJournalStore, verifyChain } from './journal.js';

/** A store that hands its entries out as a one-shot generator, as a database cursor does. */
class CursorStore implements JournalStore {
  private readonly rows: JournalEntry[] = [];
  append(entry: JournalEntry): void {
    this.rows.push(entry);
  }
  *entries(): Iterable<JournalEntry> {
    yield* this.rows;
  }
  dropLast(): void {
    this.rows.pop();
  }
}

function filled(store: JournalStore, count: number): Journal {
  const journal = Journal.create(store);
  for (let i = 0; i < count; i++) journal.append('DomainEventAppended', { schema: 'test/E@1', value: i, origin: 'external' });
  return journal;
}

describe('journal heads: truncation is found', () => {
  it('accepts a journal that reaches its recorded head, from a one-shot cursor too', () => {
    const store = new CursorStore();
    const journal = filled(store, 5);
    const head = { hash: journal.headHash!, length: journal.length };
    expect(verifyChain(store.entries(), head)).toBeUndefined();
    expect(Journal.open(store, { expectedHead: head }).ok).toBe(true);
  });

  it('refuses a journal cut short of its recorded head', () => {
    const store = new CursorStore();
    const journal = filled(store, 5);
    const head = { hash: journal.headHash!, length: journal.length };
    store.dropLast();
    expect(verifyChain(store.entries())).toBeUndefined();
    expect(verifyChain(store.entries(), head)).toMatchObject({ seq: 4, reason: expect.stringMatching(/stops at entry 4/) });
    const opened = Journal.open(store, { expectedHead: head });
    expect(opened.ok).toBe(false);
  });

  it('refuses a journal whose entry at the head is another one', () => {
    const a = filled(new MemoryJournalStore(), 3);
    const b = new MemoryJournalStore();
    const other = Journal.create(b);
    for (let i = 0; i < 3; i++) other.append('DomainEventAppended', { schema: 'test/E@1', value: i + 10, origin: 'external' });
    expect(verifyChain(b.entries(), { hash: a.headHash!, length: 3 })).toMatchObject({ seq: 2 });
  });
});

describe('a body encoded once per append', () => {
  /** A store that keeps bodies as canonical CBOR, as the SQLite store does. */
  class EncodingStore implements JournalStore {
    readonly bodies: Uint8Array[] = [];
    private readonly rows: JournalEntry[] = [];
    append(entry: JournalEntry): void {
      this.bodies.push(encodeCanonical(entry.body));
      this.rows.push(entry);
    }
    entries(): Iterable<JournalEntry> {
      return this.rows;
    }
  }

  it('gives the store and the hash the bytes a fresh encoding gives', () => {
    const store = new EncodingStore();
    const journal = Journal.create(store);
    const bodies: CborValue[] = [
      { intent_hash: `sha256:${'a'.repeat(64)}`, submitted: { receipt: { path: 'é/x', size: 2n ** 60n, n: 1.5 } } },
      'text',
      [new Map([[1, 'one']])],
      null,
    ];
    for (const body of bodies) journal.append('DomainEventAppended', body);
    expect(store.bodies.map((b) => Buffer.from(b).toString('hex'))).toEqual(
      bodies.map((b) => Buffer.from(encodeCanonical(b)).toString('hex')),
    );
    const entries = journal.entries();
    for (const entry of entries) expect(entry.hash).toBe(entryHash(entry.seq, entry.kind, entry.body, entry.prev));
    expect(verifyChain(entries)).toBeUndefined();
  });

  it('refuses a body that cannot be encoded as it always did, and appends nothing', () => {
    const store = new EncodingStore();
    const journal = Journal.create(store);
    expect(() => journal.append('DomainEventAppended', { value: undefined } as unknown as CborValue)).toThrow(
      /cannot encode \/body: field "value" is undefined/,
    );
    expect(journal.length).toBe(0);
    expect(store.bodies).toEqual([]);
  });
});
