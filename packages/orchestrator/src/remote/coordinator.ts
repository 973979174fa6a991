import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Job, Queue, QueueEvents } from 'bullmq';
import { runAgent } from '../agents/agent-runner.js';
import type { AgentRecord } from '../agents/agent-store.js';
import type { ProjectCore } from '../agents/project-core.js';
import type { AgentDispatch } from '../project/open-project.js';
import { tokenHash } from './capability-token.js';
import { offerJob } from './job-offer.js';
import { redisConnection } from './redis-connection.js';
import { agentOfJobId, type CoordinatorInfo, parseJobData, parseResult, queueNameOf } from './remote-job.js';
import { dropDeadUploads } from './dead-uploads.js';
import { adoptUpload, failRemoteAgent, keepEvidence } from './result-intake.js';
import { loadSigningKey, type SigningKey } from './signing-key.js';
import { SnapshotMaker } from './snapshots.js';
import { verifyResult } from './verify-result.js';
import { uploadPaths } from './worker-endpoint.js';
import { WorkerRoster } from './worker-roster.js';

/** How long a stop waits for Redis to let the queue close in order. */
const STOP_GRACE_MS = 5000;

/** 'done' when `work` settled within `ms`, else 'late' (the work goes on unwatched). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<'done' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([
      work.then(
        () => 'done' as const,
        () => 'done' as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes the queue in order: the followers end, then the event stream and the queue. While Redis is away that
 * would wait for it to come back; after the grace the connections are dropped instead.
 */
async function closeQueue(followers: Promise<unknown>[], events: QueueEvents, queue: Queue): Promise<void> {
  const orderly = (async () => {
    await Promise.allSettled(followers);
    await events.close();
    await queue.close();
  })();
  if ((await settledWithin(orderly, STOP_GRACE_MS)) === 'late') {
    void events.disconnect().catch(() => undefined);
    void queue.disconnect().catch(() => undefined);
  }
}

/** How many of an agent's jobs may be lost from the queue (with Redis) before it fails: one is put there again. */
const LOSSES_ALLOWED = 1;

/** The attempt after which an agent that untrusted workers keep taking fails instead of going back on the queue. */
const ATTEMPTS_PAST_UNTRUSTED = 4;

/** Options of a coordinator. */
export interface CoordinatorOptions {
  /** `redis://HOST:PORT` of the queue. */
  queue: string;
  /** How long a capability token is valid (ms; default one hour). */
  tokenTtlMs?: number;
  /** How often a running job is looked at (ms). */
  pollMs?: number;
}

/** The folders a coordinator keeps under `.agentfs/remote/`. */
export function remoteDirs(core: Pick<ProjectCore, 'layout'>): { root: string; snapshots: string; uploads: string; evidence: string } {
  const root = join(core.layout.agentfsDir, 'remote');
  return { root, snapshots: join(root, 'snapshots'), uploads: join(root, 'uploads'), evidence: join(root, 'evidence') };
}

/**
 * The coordinator's side of remote workers: puts each queued agent on the BullMQ queue (job id = agent id +
 * attempt) with a capability token it signs and the hash of a snapshot of stable.db, follows the job (the
 * worker's name and progress become the agent's), and when the job completes, verifies the result before the
 * agent reaches `reviewing`. A refused result fails the agent with the reason, keeps the evidence and marks
 * the worker untrusted. Agents left running by a coordinator that stopped are followed again from Redis.
 */
export class Coordinator implements AgentDispatch {
  readonly slots = 1024;
  readonly snapshots: SnapshotMaker;
  readonly roster: WorkerRoster;
  private readonly queue: Queue;
  private readonly key: SigningKey;
  private readonly dirs: ReturnType<typeof remoteDirs>;
  private readonly following = new Map<string, Promise<void>>();
  private stopped = false;
  /** Followers waiting for news of their job, by job id: a queue event wakes one at once. */
  private readonly waiting = new Map<string, () => void>();
  private readonly events: QueueEvents;
  /** Settles when `stop` begins: no one waits on a follower that waits on a Redis that is away. */
  private halt!: () => void;
  private readonly halted = new Promise<void>((resolve) => (this.halt = resolve));

  constructor(
    private readonly core: ProjectCore,
    private readonly options: CoordinatorOptions,
  ) {
    this.dirs = remoteDirs(core);
    mkdirSync(this.dirs.root, { recursive: true, mode: 0o700 });
    this.key = loadSigningKey(join(this.dirs.root, 'coordinator.key'));
    this.snapshots = new SnapshotMaker(core.stable, this.dirs.snapshots);
    this.roster = new WorkerRoster(core.layout.configPath, join(this.dirs.root, 'untrusted.json'));
    this.roster.check();
    this.queue = new Queue(queueNameOf(core.layout.home), { connection: redisConnection(options.queue) });
    this.queue.on('error', () => undefined);
    this.events = new QueueEvents(this.queue.name, { connection: redisConnection(options.queue) });
    this.events.on('error', () => undefined);
    for (const name of ['completed', 'failed', 'progress', 'active', 'stalled'] as const)
      this.events.on(name, ({ jobId }: { jobId: string }) => this.waiting.get(jobId)?.());
  }

  /** What workers are told at `GET /info`. */
  get info(): CoordinatorInfo {
    return { queue: this.queue.name, key: this.key.publicText };
  }

  /** The folder uploads land in. */
  get uploadsDir(): string {
    return this.dirs.uploads;
  }

  /**
   * True when `jobId` is the job of an agent running on a worker: an upload for any other (the agent settled, or
   * was rejected, or the job was put on the queue again) is not kept, and the agent's log says so.
   */
  wantsUpload(jobId: string, worker: string): boolean {
    const agentId = agentOfJobId(jobId);
    const record = agentId === undefined ? undefined : this.core.store.get(agentId);
    if (record?.state === 'running' && record.remoteJob?.id === jobId) return true;
    if (record !== undefined)
      this.log(record.id, `worker ${worker} uploaded a result for job ${jobId} once it was no longer the agent's; not kept`);
    return false;
  }

  /** Follows again the agents a previous coordinator left running on workers. */
  resume(): void {
    // and drops what earlier coordinators kept of agents that have settled since
    dropDeadUploads(this.dirs.uploads, (id) => this.core.store.get(id)?.state === 'running');
    for (const record of this.core.store.list(['running'])) {
      if (record.remoteJob !== undefined && !this.following.has(record.id)) this.track(record.id, this.follow(record.id));
    }
  }

  /** Puts a queued agent on the queue and follows it until it is decided. */
  run(id: string): Promise<void> {
    return Promise.race([this.dispatch(id), this.halted]);
  }

  private async dispatch(id: string): Promise<void> {
    const record = this.core.store.require(id);
    // a revision keeps its overlay here, so it runs in this process
    if (record.journalHead !== undefined) return runAgent(this.core, id);
    try {
      await this.enqueue(record, 1, ['queued']);
    } catch (error) {
      failRemoteAgent(this.core, id, { code: 'remote', message: `the agent could not be put on the queue: ${(error as Error).message}` }, [
        'queued',
        'running',
      ]);
      return;
    }
    await this.track(id, this.follow(id));
  }

  /** Stops following (agents stay running and are followed again by the next coordinator) and disconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.halt();
    for (const wake of this.waiting.values()) wake();
    await closeQueue([...this.following.values()], this.events, this.queue);
  }

  private track(id: string, following: Promise<void>): Promise<void> {
    const done = following.finally(() => this.following.delete(id));
    this.following.set(id, done);
    return done;
  }

  /** Puts attempt `attempt` of the agent on the queue; `lost` counts its attempts lost from the queue so far. */
  private async enqueue(record: AgentRecord, attempt: number, from: readonly ('queued' | 'running')[], lost = 0): Promise<void> {
    const snapshot = await this.snapshots.current();
    const { jobId, data, token } = offerJob(
      this.core,
      record,
      attempt,
      snapshot.hash,
      this.key.secret,
      this.options.tokenTtlMs ?? 3_600_000,
    );
    const remoteJob = lost === 0 ? { id: jobId, attempt } : { id: jobId, attempt, lost };
    const patch = { owner: `remote:${this.core.owner}`, remoteJob, tokenHash: tokenHash(token) };
    if (from.includes('queued'))
      this.core.lifecycle.move(record.id, ['queued'], 'running', patch, 'start', (moved, time) => ({
        type: 'agent.started',
        time,
        agentId: record.id,
        run: moved.runs + 1,
      }));
    else this.core.store.update(record.id, patch, ['running']);
    // finished jobs stay a week, long enough for a coordinator that was down to read them
    const keep = { age: 7 * 24 * 3600 };
    await this.queue.add('agent', data, { jobId, attempts: 1, removeOnComplete: keep, removeOnFail: keep });
    this.log(record.id, `on the queue as job ${jobId} (snapshot ${snapshot.hash.slice(0, 12)})`);
  }

  /** Follows the agent's job; a reject stops following it (the worker's result is then never read). */
  private async follow(id: string): Promise<void> {
    const run = this.core.running.start(id);
    const wakeOnStop = () => {
      const jobId = this.core.store.get(id)?.remoteJob?.id;
      if (jobId !== undefined) this.waiting.get(jobId)?.();
    };
    run.signal.addEventListener('abort', wakeOnStop);
    try {
      await this.followJob(id, run.signal);
    } catch (error) {
      // the agent moved under it (a reject while its result was read): that move stands; say what happened
      const message = `following agent ${id}'s job: ${(error as Error).message}`;
      this.core.emit({ type: 'error', time: new Date(this.core.clock()).toISOString(), agentId: id, code: 'remote', message });
    } finally {
      run.signal.removeEventListener('abort', wakeOnStop);
      run.end();
      // an agent that settled leaves no upload behind (one still running is followed again by the next coordinator)
      if (this.core.store.get(id)?.state !== 'running') dropDeadUploads(this.dirs.uploads, (agent) => agent !== id);
    }
  }

  private async followJob(id: string, signal: AbortSignal): Promise<void> {
    let seenWorker: string | undefined;
    while (!this.stopped) {
      if (signal.aborted) {
        const worker = this.core.store.get(id)?.worker;
        const message = `stopped while it ran${worker === undefined ? '' : ` on worker ${worker}`}: ${(signal.reason as Error).message}`;
        return failRemoteAgent(this.core, id, { code: 'stopped', message });
      }
      const record = this.core.store.get(id);
      if (record?.state !== 'running' || record.remoteJob === undefined) return;
      const { id: jobId, attempt, lost = 0 } = record.remoteJob;
      let job: Job | undefined;
      let state: string;
      try {
        job = await this.queue.getJob(jobId);
        state = job === undefined ? 'lost' : await job.getState();
      } catch {
        await this.pause(jobId);
        continue;
      }
      if (job === undefined || state === 'unknown') {
        if (lost >= LOSSES_ALLOWED)
          return failRemoteAgent(this.core, id, {
            code: 'remote',
            message: `job ${jobId} was lost from the queue (was Redis emptied?), and the one before it too`,
          });
        this.log(id, `job ${jobId} was lost from the queue; it is put there again`);
        await this.enqueue(record, attempt + 1, ['running'], lost + 1).catch(() => this.pause(jobId));
        continue;
      }
      const worker = workerOf(job);
      if (worker !== undefined && worker !== seenWorker) {
        seenWorker = worker;
        this.core.store.update(id, { worker }, ['running']);
        this.log(id, `running on worker ${worker}`);
      }
      // the job as read before its state may predate its end: read it again for the result
      const ended = state === 'completed' || state === 'failed' ? await this.queue.getJob(jobId).catch(() => undefined) : undefined;
      if (state === 'completed' && ended !== undefined) {
        if ((await this.settle(record, ended)) === 'requeued') continue;
        return;
      }
      if (state === 'failed' && ended !== undefined) {
        const by = workerOf(ended) ?? worker;
        if (by !== undefined && (await this.requeueFromUntrusted(record, by))) continue;
        const reason = ended.failedReason ?? 'the job failed';
        return failRemoteAgent(this.core, id, {
          code: 'remote',
          message: `${by === undefined ? '' : `worker ${by}: `}${reason}`,
        });
      }
      await this.pause(jobId);
    }
  }

  /**
   * Puts the agent back on the queue, for another worker, when `worker` (which took its job) is untrusted: its
   * result is never looked at, and the agent should not fail for it. True when it did; an agent that untrusted
   * workers took again and again fails instead.
   */
  private async requeueFromUntrusted(record: AgentRecord, worker: string): Promise<boolean> {
    const why = this.roster.untrusted(worker);
    const attempt = record.remoteJob?.attempt ?? 1;
    if (why === undefined || attempt >= ATTEMPTS_PAST_UNTRUSTED) return false;
    this.log(record.id, `worker ${worker} is untrusted (${why}): its result is not looked at, and the agent goes back on the queue`);
    await this.enqueue(record, attempt + 1, ['running'], record.remoteJob?.lost);
    return true;
  }

  private async settle(record: AgentRecord, job: Job): Promise<'settled' | 'requeued'> {
    const jobId = job.id!;
    const result = parseResult(job.returnvalue);
    if (result === undefined) {
      failRemoteAgent(this.core, record.id, { code: 'remote', message: `job ${jobId} completed without a result Cairn can read` });
      return 'settled';
    }
    this.core.store.update(record.id, { worker: result.worker }, ['running']);
    if (await this.requeueFromUntrusted(record, result.worker)) return 'requeued';
    if (result.state === 'failed') {
      failRemoteAgent(this.core, record.id, { code: result.code, message: `on worker ${result.worker}: ${result.reason}` });
      return 'settled';
    }
    const untrusted = this.roster.untrusted(result.worker);
    if (untrusted !== undefined) {
      failRemoteAgent(this.core, record.id, {
        code: 'untrusted',
        message: `worker ${result.worker} is untrusted (${untrusted}); its result was not looked at`,
        hint: `clear it with \`cairn worker trust ${result.worker}\``,
      });
      return 'settled';
    }
    const upload = uploadPaths(this.dirs.uploads, jobId, job.attemptsStarted);
    const data = parseJobData(job.data);
    const snapshotPath = data.ok ? this.snapshots.pathOf(data.data.snapshot) : undefined;
    if (!data.ok || snapshotPath === undefined) {
      failRemoteAgent(this.core, record.id, { code: 'remote', message: `job ${jobId}'s snapshot is gone from this coordinator` });
      return 'settled';
    }
    const verdict = await verifyResult(
      this.core,
      {
        record,
        jobId,
        attempt: job.attemptsStarted,
        token: data.data.token,
        coordinatorKey: this.key.publicKey,
        snapshot: data.data.snapshot,
        snapshotPath,
        upload,
        workerKey: (name) => this.roster.keyOf(name),
        runs: result.runs,
        now: this.core.clock(),
      },
      result.worker,
    ).catch((error: Error) => ({ ok: false as const, reason: `verification failed: ${error.message}`, blameWorker: false }));
    if (!verdict.ok) {
      const evidence = keepEvidence(this.dirs.evidence, upload, jobId, job.attemptsStarted);
      if (verdict.blameWorker) this.roster.distrust(result.worker, `${jobId}: ${verdict.reason}`);
      failRemoteAgent(this.core, record.id, {
        code: 'unverified',
        message: `the result of worker ${result.worker} was refused: ${verdict.reason}`,
        hint: `evidence kept in ${evidence}${verdict.blameWorker ? `; the worker is untrusted until \`cairn worker trust ${result.worker}\`` : ''}`,
      });
      return 'settled';
    }
    adoptUpload(this.core, record, upload.db, verdict, result);
    await job.remove().catch(() => undefined);
    return 'settled';
  }

  private log(id: string, message: string): void {
    this.core.emit({ type: 'agent.log', time: new Date(this.core.clock()).toISOString(), agentId: id, message });
  }

  /** Waits for news of `jobId` (a queue event), or the poll interval at most (events can be missed while Redis is away). */
  private pause(jobId: string): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.waiting.get(jobId) === done) this.waiting.delete(jobId);
        resolve();
      };
      const timer = setTimeout(done, this.options.pollMs ?? 1000);
      this.waiting.set(jobId, done);
    });
  }
}

/** The worker a job's progress names, if any. */
function workerOf(job: Job): string | undefined {
  const worker = (job.progress as { worker?: unknown } | undefined)?.worker;
  return typeof worker === 'string' ? worker : undefined;
}
