import { AgentFS, Overlay, SqliteJournalStore } from '@cairn/agentfs';
import { Journal, type JournalEntry } from '@cairn/air';
import { CairnError } from '../errors.js';
import { BlobStore } from './blob-store.js';
import { TouchedLog } from './touched-log.js';

/** An agent's database opened for work: its overlay of the project, its journal, its blobs and touched paths. */
export class AgentWorkspace {
  readonly overlay: Overlay;
  readonly journal: Journal;
  readonly blobs: BlobStore;
  readonly touched: TouchedLog;

  private constructor(overlay: Overlay, journal: Journal) {
    this.overlay = overlay;
    this.journal = journal;
    this.blobs = new BlobStore(overlay.upper);
    this.touched = new TouchedLog(overlay.upper, this.blobs);
  }

  /**
   * Opens (creating if needed) the overlay at `path` over `stable` and verifies its journal: the chain must
   * be whole and reach `expectedHead` when one is given, so a truncated or edited journal is refused.
   */
  static open(agentId: string, path: string, stable: AgentFS, expectedHead?: { hash: string; length: number }): AgentWorkspace {
    const overlay = Overlay.open(path, stable);
    try {
      const store = new SqliteJournalStore(overlay.upper.db);
      const opened = Journal.open(store, expectedHead === undefined ? {} : { expectedHead: expectedHead as { hash: JournalEntry['hash']; length: number } });
      if (!opened.ok) {
        throw new CairnError('CAIRN_CORRUPT', `the journal of agent ${agentId} is broken at entry ${opened.broken.seq}: ${opened.broken.reason}`, {
          hint: 'the journal was altered or cut short after it was written; the agent cannot be resumed or replayed',
        });
      }
      return new AgentWorkspace(overlay, opened.journal);
    } catch (error) {
      overlay.close();
      throw error;
    }
  }

  /** The journal's head, to keep in the agent's record. */
  head(): { hash: string; length: number } | undefined {
    const hash = this.journal.headHash;
    return hash === null ? undefined : { hash, length: this.journal.length };
  }

  transaction<T>(fn: () => T): T {
    return this.overlay.upper.transaction(fn);
  }

  close(): void {
    this.overlay.close();
  }
}
