import { snapshotEntry, writeStateSnapshot } from '@cairn/workspace';
import { toAgentInfo } from '../agents/agent-info.js';
import type { AgentRecord, AgentStore } from '../agents/agent-store.js';

/**
 * How far back a rewrite looks for records written since the last one: a transaction that read the clock just
 * before a rewrite can commit just after it.
 */
const LATE_COMMIT_MS = 10_000;

/**
 * Keeps `state/agents.json` from the records at a cost of the agents that changed: each agent's entry is kept
 * between rewrites and only records written since the last rewrite (by this process or another) are read
 * again. A count that does not match the agents known (a record written with a time far behind) means one it
 * missed, and a clock set back means one it could miss: all are read again.
 */
export class AgentsSnapshot {
  private readonly entries = new Map<string, { createdAt: number; entry: string }>();
  private order: string[] = [];
  /** The clock at the last rewrite: records written since carry a later time (less the margin). */
  private lastWrite = Number.POSITIVE_INFINITY;

  constructor(
    private readonly store: AgentStore,
    private readonly stateDir: string,
    private readonly root: string,
  ) {}

  write(time: number): void {
    // the first rewrite, or one after the clock was set back, reads every record
    const changed = time >= this.lastWrite ? this.store.changedSince(this.lastWrite - LATE_COMMIT_MS) : this.store.list();
    this.lastWrite = time;
    let added = this.keep(changed);
    if (this.entries.size !== this.store.count()) added = this.keep(this.store.list()) || added;
    if (added)
      this.order = [...this.entries.keys()].sort(
        (a, b) => this.entries.get(a)!.createdAt - this.entries.get(b)!.createdAt || (a < b ? -1 : 1),
      );
    const queue = this.store.queued().map((a) => a.id);
    writeStateSnapshot(
      this.stateDir,
      this.root,
      this.order.map((id) => this.entries.get(id)!.entry),
      queue,
      time,
    );
  }

  /** Keeps the entries of `records`; true when one is new. */
  private keep(records: readonly AgentRecord[]): boolean {
    let added = false;
    for (const record of records) {
      if (!this.entries.has(record.id)) added = true;
      this.entries.set(record.id, { createdAt: record.createdAt, entry: snapshotEntry(toAgentInfo(record)) });
    }
    return added;
  }
}
