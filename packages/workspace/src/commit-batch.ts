import type { AgentFS } from '@cairn/agentfs';
import { CairnError } from '@cairn/api';

/** How long the transactions of an agent's database may wait to commit together. */
export const BATCH_WINDOW_MS = 4;
/** How many transactions commit together at most. */
export const BATCH_LIMIT = 64;

/**
 * Consecutive transactions on one database committed together. The first opens a transaction; each runs in a
 * savepoint of it, so a transaction that fails undoes its own work and nothing else; all of them commit once
 * `BATCH_WINDOW_MS` have passed, after `BATCH_LIMIT` transactions, or when `flush` is called. Each transaction
 * stays whole: its writes and journal entries commit together or not at all, as before, only with its
 * neighbours. Other connections read what was committed, never a part of a transaction. A batch whose commit
 * failed (a full disk) is rolled back as a whole, and every later transaction refuses with that error.
 */
export class CommitBatch {
  private open = false;
  private count = 0;
  private timer: NodeJS.Timeout | undefined;
  private failure: CairnError | undefined;

  constructor(
    private readonly store: AgentFS,
    private readonly onCommit: () => void,
  ) {}

  /** Runs `fn` as one transaction of the batch. */
  run<T>(fn: () => T): T {
    if (this.failure !== undefined) throw this.failure;
    const { db } = this.store;
    if (this.open && !db.inTransaction) throw this.fail(new Error('the batch was rolled back'));
    if (!this.open && !db.inTransaction) {
      db.exec('BEGIN');
      this.open = true;
      this.count = 0;
      this.timer = setTimeout(() => this.flush(), BATCH_WINDOW_MS);
      this.timer.unref();
    }
    const result = this.store.transaction(fn);
    if (this.open && ++this.count >= BATCH_LIMIT) this.flush();
    return result;
  }

  /** Commits what the batch holds; false when a commit failed (then nothing of the batch was kept). Never throws. */
  flush(): boolean {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.open) return this.failure === undefined;
    this.open = false;
    const { db } = this.store;
    try {
      if (!db.inTransaction) throw new Error('the batch was rolled back');
      db.exec('COMMIT');
    } catch (error) {
      this.fail(error);
      return false;
    }
    this.onCommit();
    return true;
  }

  private fail(cause: unknown): CairnError {
    const { db } = this.store;
    try {
      if (db.inTransaction) db.exec('ROLLBACK');
    } catch {
      // the connection is gone: nothing of the batch was committed either way
    }
    this.open = false;
    this.failure = new CairnError('CAIRN_INTERNAL', `the agent's database could not be written: ${(cause as Error).message}`, {
      cause,
      hint: 'the run stops here; free disk space and spawn the task again',
    });
    return this.failure;
  }
}
