import type { AgentPatch, AgentRecord, ProjectCore } from '@cairn/orchestrator/engine';
import type { Queue } from 'bullmq';
import { tokenHash } from './capability-token.js';
import { offerJob } from './job-offer.js';
import { answered, QueueAway } from './queue-answer.js';
import type { SnapshotMaker } from './snapshots.js';

/** How an agent's attempts are offered: the key that signs their tokens, and how long a token is valid. */
export interface OfferTerms {
  secret: Uint8Array;
  tokenTtlMs: number;
}

/** The agents' side of the BullMQ queue: what puts an attempt on it, and moves an agent back to `queued`. */
export class AgentQueue {
  constructor(
    private readonly core: Pick<ProjectCore, 'layout' | 'defaultModel' | 'clock' | 'store' | 'lifecycle'>,
    private readonly queue: Pick<Queue, 'add'>,
    private readonly snapshots: Pick<SnapshotMaker, 'current'>,
    private readonly terms: OfferTerms,
    private readonly log: (agentId: string, message: string) => void,
  ) {}

  /**
   * Puts attempt `attempt` of the agent on the queue; `lost` counts its attempts lost from the queue so far. An
   * agent a worker had goes back to `queued` with `why`.
   */
  async put(record: AgentRecord, attempt: number, lost = 0, why?: string): Promise<void> {
    const snapshot = await this.snapshots.current();
    const { jobId, data, token } = offerJob(this.core, record, attempt, snapshot.hash, this.terms.secret, this.terms.tokenTtlMs);
    const remoteJob = { id: jobId, attempt, queuedAt: this.core.clock(), ...(lost === 0 ? {} : { lost }) };
    const patch = { owner: undefined, worker: undefined, remoteJob, tokenHash: tokenHash(token) };
    if (record.state === 'running') this.backToQueued(record.id, patch, why ?? `job ${jobId}`);
    else this.core.store.update(record.id, patch, ['queued']);
    // finished jobs stay a week, long enough for a coordinator that was down to read them
    const keep = { age: 7 * 24 * 3600 };
    try {
      await answered(this.queue.add('agent', data, { jobId, attempts: 1, removeOnComplete: keep, removeOnFail: keep }));
    } catch (error) {
      // Redis away: the job goes on the queue once it is back (else it is found lost, and put there again)
      if (!(error instanceof QueueAway)) throw error;
    }
    this.log(record.id, `on the queue as job ${jobId} (snapshot ${snapshot.hash.slice(0, 12)})`);
  }

  /** Moves an agent a worker had back to `queued` (its job waits for another worker), saying why. */
  backToQueued(id: string, patch: AgentPatch, why: string): void {
    this.core.lifecycle.move(
      id,
      ['running'],
      'queued',
      { owner: undefined, worker: undefined, ...patch },
      'put back on the queue',
      (_, time) => ({
        type: 'agent.requeued',
        time,
        agentId: id,
        reason: why,
      }),
    );
  }
}
