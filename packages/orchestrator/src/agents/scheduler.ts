/**
 * Which queued agents a scheduler may start: all of them (a daemon), only its own process's (a CLI that
 * spawns), or none (a process that only records agents for a daemon to run).
 */
export type QueueScope = 'all' | 'own' | 'none';

/**
 * A FIFO queue drained into a bounded pool. The queue itself lives in bin.db (queued agents in order);
 * this keeps the slots and starts the next agent whenever one frees. Claiming an agent is a
 * compare-and-set in the store, so two processes never start the same one.
 */
export class Scheduler {
  private readonly running = new Map<string, Promise<void>>();
  private readonly own = new Set<string>();
  private closed = false;

  constructor(
    private readonly poolSize: number,
    private readonly scope: QueueScope,
    private readonly nextQueued: () => string[],
    private readonly run: (id: string) => Promise<void>,
  ) {}

  /** Marks an agent this process created, so an `own` scheduler runs it. */
  adopt(id: string): void {
    this.own.add(id);
  }

  /** Fills free slots with the queued agents first in line. */
  kick(): void {
    if (this.closed || this.scope === 'none') return;
    for (const id of this.nextQueued()) {
      if (this.running.size >= this.poolSize) return;
      if (this.running.has(id) || (this.scope === 'own' && !this.own.has(id))) continue;
      const task = this.run(id).finally(() => {
        this.running.delete(id);
        this.kick();
      });
      this.running.set(id, task);
      // adopted again if it is sent back to work before this run has let go of it (a reply on its proposal)
      this.own.delete(id);
    }
  }

  /** Agents running in this process now. */
  get active(): string[] {
    return [...this.running.keys()];
  }

  /** Resolves when nothing runs in this process. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  /** Starts nothing more; what runs is left to finish. */
  stop(): void {
    this.closed = true;
  }
}
