import type { AgentRecord, ProjectCore } from '@cairn/orchestrator/engine';
import type { Job, Queue } from 'bullmq';
import type { AgentQueue } from './agent-queue.js';
import { dropDeadUploads } from './dead-uploads.js';
import type { JobSettlement } from './job-settlement.js';
import { answered } from './queue-answer.js';
import { failRemoteAgent } from './result-intake.js';
import { claimOf } from './run-claim.js';
import type { WorkerRoster } from './worker-roster.js';
import type { WorkerWait } from './worker-wait.js';

/** How many of an agent's jobs may be lost from the queue (with Redis) before it fails: one is put there again. */
const LOSSES_ALLOWED = 1;

/** True for an agent on the queue or running on a worker. */
export function onQueue(record: AgentRecord | undefined): boolean {
  return (record?.state === 'queued' || record?.state === 'running') && record.remoteJob !== undefined;
}

/** What a follower works with besides the project. */
export interface FollowerParts {
  queue: Pick<Queue, 'getJob'>;
  roster: WorkerRoster;
  agents: AgentQueue;
  settlement: JobSettlement;
  wait: WorkerWait;
  uploadsDir: string;
  /** How often a job is looked at when no queue event comes (ms). */
  pollMs: number;
  log(agentId: string, message: string): void;
}

/**
 * Follows an agent's job on the queue until the agent settles: the agent is `running` (with the worker whose
 * claim verified) while a worker has the job, goes back to `queued` when the worker lets go, and settles by the
 * job's end. A queue event about the job wakes its follower at once; else it looks every `pollMs`.
 */
export class JobFollower {
  /** Followers waiting for news of their job, by job id. */
  private readonly waiting = new Map<string, () => void>();
  private stopped = false;

  constructor(
    private readonly core: Pick<ProjectCore, 'clock' | 'emit' | 'lifecycle' | 'owner' | 'running' | 'store'>,
    private readonly parts: FollowerParts,
  ) {}

  /** News of a job (a queue event): its follower looks now. */
  wake(jobId: string): void {
    this.waiting.get(jobId)?.();
  }

  /** Stops every follower at its next look (agents stay as they are, for the next coordinator). */
  stop(): void {
    this.stopped = true;
    for (const wake of this.waiting.values()) wake();
  }

  /**
   * Follows the agent's job until the agent settles: `here` when it is to run in this process instead (no trusted
   * worker took it, and the project says so). A reject stops following it (the worker's result is then never read).
   */
  async follow(id: string): Promise<'settled' | 'here'> {
    // registered as running here only while a worker has it: a reject then stops following it; a queued agent
    // is rejected as any queued agent is, and its job taken off the queue
    let held: { signal: AbortSignal; end: () => void } | undefined;
    const wakeOnStop = () => {
      const jobId = this.core.store.get(id)?.remoteJob?.id;
      if (jobId !== undefined) this.wake(jobId);
    };
    const hold = (running: boolean): AbortSignal | undefined => {
      if (running && held === undefined) {
        held = this.core.running.start(id);
        held.signal.addEventListener('abort', wakeOnStop);
      } else if (!running && held !== undefined && !held.signal.aborted) {
        held.signal.removeEventListener('abort', wakeOnStop);
        held.end();
        held = undefined;
      }
      return held?.signal;
    };
    try {
      return await this.followJob(id, hold);
    } catch (error) {
      // the agent moved under it (a reject while its result was read): that move stands; say what happened
      const message = `following agent ${id}'s job: ${(error as Error).message}`;
      this.core.emit({ type: 'error', time: new Date(this.core.clock()).toISOString(), agentId: id, code: 'remote', message });
      // an agent still on the queue is followed again by the next dispatch: not at once
      await new Promise((resolve) => setTimeout(resolve, this.parts.pollMs));
      return 'settled';
    } finally {
      held?.signal.removeEventListener('abort', wakeOnStop);
      held?.end();
      // an agent that settled leaves no upload behind (one still on the queue is followed again by the next coordinator)
      if (!onQueue(this.core.store.get(id))) dropDeadUploads(this.parts.uploadsDir, (agent) => agent !== id);
    }
  }

  /** `hold(running)` registers the agent as running in this process while it is, and says whether a stop was asked. */
  private async followJob(id: string, hold: (running: boolean) => AbortSignal | undefined): Promise<'settled' | 'here'> {
    const { queue, agents, settlement, wait } = this.parts;
    while (!this.stopped) {
      const record = this.core.store.get(id);
      const signal = hold(record?.state === 'running');
      if (signal?.aborted === true) {
        const worker = record?.worker;
        const message = `stopped while it ran${worker === undefined ? '' : ` on worker ${worker}`}: ${(signal.reason as Error).message}`;
        failRemoteAgent(this.core, id, { code: 'stopped', message });
        return 'settled';
      }
      if (record === undefined || record.remoteJob === undefined) return 'settled';
      if (!onQueue(record)) {
        // moved by someone else while its job waits (a reject of a queued agent): the job leaves the queue
        await wait.withdraw(record);
        return 'settled';
      }
      const { id: jobId, attempt, lost = 0 } = record.remoteJob;
      let job: Job | undefined;
      let state: string;
      try {
        job = await answered(queue.getJob(jobId));
        state = job === undefined ? 'lost' : await answered(job.getState());
      } catch {
        // Redis away: a queued agent says so past the wait (and runs here under run-here); a running one waits
        if (record.state === 'queued' && wait.withoutQueue(record) === 'here') return 'here';
        await this.pause(jobId);
        continue;
      }
      if (job === undefined || state === 'unknown') {
        if (lost >= LOSSES_ALLOWED) {
          failRemoteAgent(this.core, id, {
            code: 'remote',
            message: `job ${jobId} was lost from the queue (was Redis emptied?), and the one before it too`,
          });
          return 'settled';
        }
        const said = `job ${jobId} was lost from the queue; it is put there again`;
        this.parts.log(id, said);
        await agents.put(record, attempt + 1, lost + 1, said).catch(() => this.pause(jobId));
        continue;
      }
      // registered as running in the same tick as it moves, so a reject from then on stops it here
      if (state === 'active') hold(this.taken(record, job).state === 'running');
      else if (state === 'completed' || state === 'failed') {
        // the job as read before its state may predate its end: read it again for the result
        const ended = await answered(queue.getJob(jobId)).catch(() => undefined);
        if (ended === undefined) {
          await this.pause(jobId);
          continue;
        }
        // a run so quick that its taking was never seen
        const taken = this.taken(record, ended);
        if (hold(taken.state === 'running')?.aborted !== false) continue;
        const outcome = state === 'completed' ? await settlement.completed(taken, ended) : await settlement.failed(taken, ended);
        if (outcome === 'requeued') continue;
        return 'settled';
      } else {
        // waiting: for a worker, or again after the worker that had it stopped renewing its lock
        if (record.state === 'running')
          agents.backToQueued(
            id,
            { remoteJob: { id: jobId, attempt, queuedAt: this.core.clock(), ...(lost === 0 ? {} : { lost }) } },
            [
              `${record.worker === undefined ? 'the worker' : `worker ${record.worker}`} let go of job ${jobId} (it stopped renewing its lock);`,
              'it waits for another worker',
            ].join(' '),
          );
        else if ((await wait.withoutWorker(record)) === 'here') return 'here';
      }
      await this.pause(jobId);
    }
    return 'settled';
  }

  /**
   * A worker has the job: a queued agent becomes `running`, and the worker whose claim of the run verifies is
   * recorded. Returns the record as it is now.
   */
  private taken(record: AgentRecord, job: Job): AgentRecord {
    const claim = claimOf(job, record, this.parts.roster);
    const remoteJob = { ...record.remoteJob!, ...(claim === undefined ? {} : { claim }) };
    if (record.state === 'queued') {
      let moved: AgentRecord;
      try {
        moved = this.core.lifecycle.move(
          record.id,
          ['queued'],
          'running',
          { owner: `remote:${this.core.owner}`, remoteJob, reason: undefined, ...(claim === undefined ? {} : { worker: claim.worker }) },
          'start',
          (agent, time) => ({ type: 'agent.started', time, agentId: record.id, run: agent.runs + 1 }),
        );
      } catch {
        // moved meanwhile (a reject): that move stands
        return this.core.store.require(record.id);
      }
      this.parts.log(record.id, claim === undefined ? `job ${job.id!} was taken` : `running on worker ${claim.worker}`);
      return moved;
    }
    if (claim === undefined || (record.worker === claim.worker && record.remoteJob?.claim?.run === claim.run)) return record;
    const updated = this.core.store.update(record.id, { worker: claim.worker, remoteJob }, ['running']);
    this.parts.log(record.id, `running on worker ${claim.worker}`);
    return updated;
  }

  /** Waits for news of `jobId` (a queue event), or the poll interval at most (events can be missed while Redis is away). */
  private pause(jobId: string): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.waiting.get(jobId) === done) this.waiting.delete(jobId);
        resolve();
      };
      const timer = setTimeout(done, this.parts.pollMs);
      this.waiting.set(jobId, done);
    });
  }
}
