import { tryEncodePart } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { withKnownEncodings } from './cbor-writer.js';
import { AirError } from './errors.js';
import { type Hash, hashNode } from './node-hash.js';

/** The kinds of journal entry: AIR v1 §15, and Cairn's records of refusals. */
export type JournalKind =
  | 'Proposed'
  | 'ShadowReport'
  | 'Approved'
  | 'Applied'
  | 'Rejected'
  | 'PlanStarted'
  | 'EffectQueued'
  | 'EffectDenied'
  | 'PolicyDecisionRecorded'
  | 'ReceiptAppended'
  | 'ReceiptRejected'
  | 'PlanEnded'
  | 'BudgetExceeded'
  | 'DomainEventAppended'
  | 'ReducerStepped'
  | 'ReducerFailed';

/** One journal entry; `hash` commits to the sequence number, kind, body and the previous entry's hash. */
export interface JournalEntry {
  seq: number;
  kind: JournalKind;
  body: CborValue;
  prev: Hash | null;
  hash: Hash;
}

/** Where entries are kept: append-only. An in-memory store is here; SQLite ones live where Cairn needs them. */
export interface JournalStore {
  append(entry: JournalEntry): void;
  entries(): Iterable<JournalEntry>;
}

/** A journal store in memory. */
export class MemoryJournalStore implements JournalStore {
  private readonly list: JournalEntry[] = [];

  append(entry: JournalEntry): void {
    this.list.push(entry);
  }

  entries(): Iterable<JournalEntry> {
    return this.list;
  }
}

/** The hash of an entry's content. */
export function entryHash(seq: number, kind: JournalKind, body: CborValue, prev: Hash | null): Hash {
  return hashNode({ seq, kind, body, prev });
}

/** Where a journal's chain breaks. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

/** Where a journal is known to end: the hash of its last entry and how many entries it has. */
export interface JournalHead {
  hash: Hash;
  length: number;
}

/**
 * Checks a sequence of entries: numbered from 0 without gaps, each hash matching its content, each `prev` the
 * hash of the entry before. An edit, deletion, insertion or reordering breaks it at the first wrong entry.
 * With `expectedHead`, a journal that stops short of it (a truncation) or ends elsewhere breaks too.
 */
export function verifyChain(entries: Iterable<JournalEntry>, expectedHead?: JournalHead): ChainBreak | undefined {
  let expected = 0;
  let prev: Hash | null = null;
  let atHead: Hash | undefined;
  for (const entry of entries) {
    if (entry.seq !== expected) return { seq: expected, reason: `entry ${expected} is missing or out of order (found ${entry.seq})` };
    if (entry.prev !== prev) return { seq: entry.seq, reason: `entry ${entry.seq} does not follow the entry before it` };
    let actual: Hash;
    try {
      actual = entryHash(entry.seq, entry.kind, entry.body, entry.prev);
    } catch {
      return { seq: entry.seq, reason: `entry ${entry.seq} cannot be encoded` };
    }
    if (actual !== entry.hash) return { seq: entry.seq, reason: `entry ${entry.seq} was changed after it was written` };
    prev = entry.hash;
    if (expectedHead !== undefined && entry.seq === expectedHead.length - 1) atHead = entry.hash;
    expected++;
  }
  if (expectedHead !== undefined) {
    if (expected < expectedHead.length)
      return { seq: expected, reason: `the journal stops at entry ${expected}; ${expectedHead.length} entries were recorded` };
    const at = expectedHead.length - 1;
    if (expectedHead.length > 0 && atHead !== expectedHead.hash)
      return { seq: at, reason: `entry ${at} is not the recorded head of the journal` };
  }
  return undefined;
}

/** An append-only, hash-chained journal over a store. */
export class Journal {
  private readonly store: JournalStore;
  private next = 0;
  private head: Hash | null = null;

  private constructor(store: JournalStore) {
    this.store = store;
  }

  /** Opens a journal on a store, refusing one whose chain is broken or that stops short of `expectedHead`. */
  static open(
    store: JournalStore = new MemoryJournalStore(),
    options: { expectedHead?: JournalHead } = {},
  ): { ok: true; journal: Journal } | { ok: false; broken: ChainBreak } {
    // One pass over the store: the entries are verified as they stream by, and the last one is the head.
    let last: JournalEntry | undefined;
    const streamed = function* (): Iterable<JournalEntry> {
      for (const entry of store.entries()) {
        last = entry;
        yield entry;
      }
    };
    const broken = verifyChain(streamed(), options.expectedHead);
    if (broken) return { ok: false, broken };
    const journal = new Journal(store);
    if (last !== undefined) {
      journal.next = last.seq + 1;
      journal.head = last.hash;
    }
    return { ok: true, journal };
  }

  /** A new, empty journal (in memory unless a store is given); throws if the store holds a broken chain. */
  static create(store: JournalStore = new MemoryJournalStore()): Journal {
    const opened = Journal.open(store);
    if (!opened.ok) throw new AirError('AIR_STORE', `the journal is broken at entry ${opened.broken.seq}: ${opened.broken.reason}`);
    return opened.journal;
  }

  /**
   * Appends an entry. The body is encoded once: its bytes serve the entry's hash and a store that keeps the body
   * as canonical CBOR. The body must not change while it is appended.
   */
  append(kind: JournalKind, body: CborValue): JournalEntry {
    const part = tryEncodePart(body, 1);
    const entry = withKnownEncodings([[body, part]], () => {
      const made: JournalEntry = { seq: this.next, kind, body, prev: this.head, hash: entryHash(this.next, kind, body, this.head) };
      this.store.append(made);
      return made;
    });
    this.next++;
    this.head = entry.hash;
    return entry;
  }

  /** How many entries the journal holds. */
  get length(): number {
    return this.next;
  }

  /** The hash of the last entry (null when empty). */
  get headHash(): Hash | null {
    return this.head;
  }

  entries(): JournalEntry[] {
    return [...this.store.entries()];
  }
}
