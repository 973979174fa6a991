/**
 * The check runs of one process: at most `slots` at once (the rest wait for a slot, first come first served),
 * each known by its agent and check while it runs or waits.
 */
export class CheckPool {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly inflight = new Set<Promise<void>>();
  private readonly inflightFor = new Map<string, Set<Promise<void>>>();
  /** The runs started and not yet ended, by their key. */
  private readonly runsHere = new Map<string, { agentId: string; name: string }>();

  constructor(private readonly slots: number) {}

  /** Runs `task` (agent `agentId`'s check `name`, its run marked `key`) once a slot is free. */
  add(agentId: string, name: string, key: string, task: () => Promise<void>): Promise<void> {
    const done = this.limited(task);
    this.runsHere.set(key, { agentId, name });
    this.inflight.add(done);
    const mine = this.inflightFor.get(agentId) ?? new Set<Promise<void>>();
    this.inflightFor.set(agentId, mine.add(done));
    void done
      .finally(() => {
        this.runsHere.delete(key);
        this.inflight.delete(done);
        mine.delete(done);
        if (mine.size === 0 && this.inflightFor.get(agentId) === mine) this.inflightFor.delete(agentId);
      })
      .catch(() => undefined);
    return done;
  }

  /** The agent's runs in this process, running or waiting for a slot. */
  of(agentId: string): Promise<void>[] {
    return [...(this.inflightFor.get(agentId) ?? [])];
  }

  /** The checks running or waiting, by agent and name. */
  running(): { agentId: string; name: string }[] {
    return [...this.runsHere.values()];
  }

  /** Resolves when no check is running or waiting. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private async limited(task: () => Promise<void>): Promise<void> {
    if (this.active >= this.slots) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
