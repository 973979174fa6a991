import { type AgentFS, journalTableDdl, Overlay, SqliteJournalStore } from '@cairn/agentfs';
import { Journal, type JournalEntry, type JournalStore } from '@cairn/air';
import { CairnError } from '@cairn/api';
import { BLOBS_DDL, BlobStore } from './blob-store.js';
import { CommitBatch } from './commit-batch.js';
import { addSpend, type JournalSpend } from './journal-spend.js';
import { TOUCHED_DDL, TouchedLog } from './touched-log.js';

/** The tables of an agent's database beside the overlay's: a new one is created with them. */
const AGENT_SCHEMA = [journalTableDdl(), BLOBS_DDL, TOUCHED_DDL].join(';\n');

/**
 * The agent's journal store, watched: what the agent has spent and its first entry (its governance) are kept
 * up to date as entries are read on open and appended afterwards, so nothing reads the whole journal again.
 */
class WatchedJournalStore implements JournalStore {
  readonly spent: JournalSpend = { tokens: 0, bytes: 0, checkMs: 0 };
  first: JournalEntry | undefined;
  /** Every entry of the last whole reading, while nothing was appended since; kept only when asked for. */
  read: JournalEntry[] | undefined;

  constructor(
    private readonly inner: SqliteJournalStore,
    private readonly keep: boolean,
  ) {}

  append(entry: JournalEntry): void {
    this.inner.append(entry);
    this.see(entry);
    this.read = undefined;
  }

  *entries(): Iterable<JournalEntry> {
    this.spent.tokens = 0;
    this.spent.bytes = 0;
    this.spent.checkMs = 0;
    this.first = undefined;
    const read: JournalEntry[] | undefined = this.keep ? [] : undefined;
    this.read = undefined;
    for (const entry of this.inner.entries()) {
      this.see(entry);
      read?.push(entry);
      yield entry;
    }
    this.read = read;
  }

  private see(entry: JournalEntry): void {
    if (entry.seq === 0) this.first = entry;
    addSpend(this.spent, entry);
  }
}

/** An agent's database opened for work: its overlay of the project, its journal, its blobs and touched paths. */
export class AgentWorkspace {
  readonly overlay: Overlay;
  readonly journal: Journal;
  readonly blobs: BlobStore;
  readonly touched: TouchedLog;

  private readonly watched: WatchedJournalStore;
  private readonly batch: CommitBatch;
  /** The journal's head as committed to the database. */
  private committed: { hash: string; length: number } | undefined;

  private constructor(overlay: Overlay, journal: Journal, watched: WatchedJournalStore) {
    this.overlay = overlay;
    this.journal = journal;
    this.watched = watched;
    this.blobs = new BlobStore(overlay.upper);
    this.touched = new TouchedLog(overlay.upper, this.blobs);
    this.committed = this.currentHead();
    this.batch = new CommitBatch(overlay.upper, () => {
      this.committed = this.currentHead();
    });
  }

  /**
   * Opens (creating if needed) the overlay at `path` over `stable` and verifies its journal: the chain must
   * be whole and reach `expectedHead` when one is given, so a truncated or edited journal is refused.
   */
  static open(
    agentId: string,
    path: string,
    stable: AgentFS,
    expectedHead?: { hash: string; length: number },
    options: { keepEntries?: boolean } = {},
  ): AgentWorkspace {
    const overlay = Overlay.open(path, stable, { schema: AGENT_SCHEMA });
    try {
      const store = new WatchedJournalStore(new SqliteJournalStore(overlay.upper.db), options.keepEntries === true);
      const opened = Journal.open(
        store,
        expectedHead === undefined ? {} : { expectedHead: expectedHead as { hash: JournalEntry['hash']; length: number } },
      );
      if (!opened.ok) {
        throw new CairnError(
          'CAIRN_CORRUPT',
          `the journal of agent ${agentId} is broken at entry ${opened.broken.seq}: ${opened.broken.reason}`,
          {
            hint: 'the journal was altered or cut short after it was written; the agent cannot be resumed or replayed',
          },
        );
      }
      return new AgentWorkspace(overlay, opened.journal, store);
    } catch (error) {
      overlay.close();
      throw error;
    }
  }

  /** What the journal says the agent has spent so far (tokens of model calls, bytes written). */
  spent(): JournalSpend {
    return { ...this.watched.spent };
  }

  /**
   * Every entry of the journal: those the open verified when it was asked to keep them (`keepEntries`) and nothing
   * was appended since, else read (and decoded) again.
   */
  entries(): JournalEntry[] {
    return this.watched.read ?? this.journal.entries();
  }

  /** The journal's first entry (the agent's start, with its governance), without reading the rest. */
  firstEntry(): JournalEntry | undefined {
    return this.watched.first;
  }

  /** The journal's head, to keep in the agent's record: everything up to it is committed first. */
  head(): { hash: string; length: number } | undefined {
    if (this.batch.flush() && !this.overlay.upper.db.inTransaction) this.committed = this.currentHead();
    return this.committed;
  }

  private currentHead(): { hash: string; length: number } | undefined {
    const hash = this.journal.headHash;
    return hash === null ? undefined : { hash, length: this.journal.length };
  }

  /**
   * Runs `fn` in one transaction of the agent's database (its writes and journal entries commit together).
   * Transactions that follow each other closely commit together (see `CommitBatch`); `head` and `close` commit.
   */
  transaction<T>(fn: () => T): T {
    return this.batch.run(fn);
  }

  close(): void {
    this.batch.flush();
    this.overlay.close();
  }
}
