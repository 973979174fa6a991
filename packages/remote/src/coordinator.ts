import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Job, Queue, QueueEvents } from 'bullmq';
import { runAgent } from '@cairn/orchestrator';
import type { AgentPatch, AgentRecord } from '@cairn/orchestrator';
import type { ProjectCore } from '@cairn/orchestrator';
import type { AgentDispatch } from '@cairn/orchestrator';
import { tokenHash } from './capability-token.js';
import { dropDeadUploads } from './dead-uploads.js';
import { offerJob } from './job-offer.js';
import { WORKER_WAIT_MS, type WithoutWorkers } from './queue-settings.js';
import { redactedUrl } from './queue-probe.js';
import { redisConnection } from './redis-connection.js';
import {
  agentOfJobId,
  type CoordinatorInfo,
  parseJobData,
  parseResult,
  queueNameOf,
  type RemoteProgress,
  UPLOAD_REFUSED,
} from './remote-job.js';
import { adoptUpload, failRemoteAgent, keepEvidence, keepRefusedUpload, refusedUploadOf } from './result-intake.js';
import { loadSigningKey, type SigningKey, verifyText } from './signing-key.js';
import { SnapshotMaker } from './snapshots.js';
import { claimSigningText, uploadSigningText } from './upload-signature.js';
import { verifyResult } from './verify-result.js';
import { type UploadAdmission, type UploadClaims, uploadPaths } from './worker-endpoint.js';
import { WorkerRoster } from './worker-roster.js';

/** How long a stop waits for Redis to let the queue close in order. */
const STOP_GRACE_MS = 5000;

/** How long the list of connected workers is reused before Redis is asked again. */
const WORKERS_FRESH_MS = 1000;

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

/** How long a read of the queue may take before Redis is taken for away (its command still runs once it is back). */
const QUEUE_ANSWER_MS = 5000;

/** Redis did not answer in time. */
class QueueAway extends Error {}

/** `work`, unless Redis takes longer than `QUEUE_ANSWER_MS` to answer (`QueueAway`). */
async function answered<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new QueueAway('the queue does not answer')), QUEUE_ANSWER_MS))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many of an agent's jobs may be lost from the queue (with Redis) before it fails: one is put there again. */
const LOSSES_ALLOWED = 1;

/** The attempt after which an agent that untrusted workers keep taking fails instead of going back on the queue. */
const ATTEMPTS_PAST_UNTRUSTED = 4;

/** How a queued agent's reason begins while the coordinator says no worker takes it. */
const NO_WORKER = 'no trusted worker';
/** How it begins while the queue does not answer. */
const NO_QUEUE = 'the queue at ';

/** Options of a coordinator. */
export interface CoordinatorOptions {
  /** `redis://HOST:PORT` of the queue. */
  queue: string;
  /** How long a capability token is valid (ms; default one hour). */
  tokenTtlMs?: number;
  /** How often a job is looked at (ms). */
  pollMs?: number;
  /** How long a queued agent waits, no trusted worker connected, before the coordinator says so (ms; default a minute). */
  workerWaitMs?: number;
  /** What becomes of it then: left `queued` (`wait`, the default), or run in the coordinator's own pool (`run-here`). */
  withoutWorkers?: WithoutWorkers;
}

/** The folders a coordinator keeps under `.agentfs/remote/`. */
export function remoteDirs(core: Pick<ProjectCore, 'layout'>): { root: string; snapshots: string; uploads: string; evidence: string } {
  const root = join(core.layout.agentfsDir, 'remote');
  return { root, snapshots: join(root, 'snapshots'), uploads: join(root, 'uploads'), evidence: join(root, 'evidence') };
}

/**
 * The coordinator's side of remote workers: puts each queued agent on the BullMQ queue (job id = agent id +
 * attempt) with a capability token it signs and the hash of a snapshot of stable.db; the agent stays `queued`
 * until a worker takes the job, and is `running` from then on, with the worker whose signed claim of the run it
 * verified. It takes a worker's upload only when the worker that claimed the run signed it, and when the job
 * completes, verifies the result before the agent reaches `reviewing`. A refused result fails the agent with
 * the reason, keeps the evidence and marks the worker untrusted. A queued agent that no trusted worker takes
 * within `workerWaitMs`, none being connected, is said to wait (its reason, an `agent.waiting` event), and runs
 * here under `withoutWorkers: run-here`. Reviewers and revisions run here. Agents left on the queue or running
 * by a coordinator that stopped are followed again from Redis.
 */
export class Coordinator implements AgentDispatch {
  readonly slots = 1024;
  readonly snapshots: SnapshotMaker;
  readonly roster: WorkerRoster;
  private readonly queue: Queue;
  private readonly key: SigningKey;
  private readonly dirs: ReturnType<typeof remoteDirs>;
  private readonly following = new Map<string, Promise<'settled' | 'here'>>();
  private stopped = false;
  /** Followers waiting for news of their job, by job id: a queue event wakes one at once. */
  private readonly waiting = new Map<string, () => void>();
  private readonly events: QueueEvents;
  /** Settles when `stop` begins: no one waits on a follower that waits on a Redis that is away. */
  private halt!: () => void;
  private readonly halted = new Promise<void>((resolve) => (this.halt = resolve));
  private connected: { at: number; names: Promise<string[] | undefined> } | undefined;
  /** How a worker is started for this coordinator, for the hint of an agent no worker takes. */
  private workerCommand: string | undefined;

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
    for (const name of ['completed', 'failed', 'progress', 'active', 'stalled', 'waiting'] as const)
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

  /** Says how a worker is started (without its token), for the hint given when no worker takes an agent. */
  setWorkerCommand(command: string): void {
    this.workerCommand = command;
  }

  /**
   * Whether the upload `body` (a file, its bytes) of `jobId`'s run `run` is taken: only while the job is its
   * agent's, when the worker it names is enrolled and signed it, and that worker is the one whose claim of the
   * run the coordinator verified (or, no claim verified yet, the one the signature proves). A refused upload is
   * moved into the evidence folder with why, and the agent's log says so; it takes no slot, and blames nobody.
   */
  async admitUpload(jobId: string, run: number, claims: UploadClaims, body: string, from?: string): Promise<UploadAdmission> {
    const agentId = agentOfJobId(jobId);
    const record = agentId === undefined ? undefined : this.core.store.get(agentId);
    if ((record?.state !== 'running' && record?.state !== 'queued') || record.remoteJob?.id !== jobId || record.tokenHash === undefined) {
      if (record !== undefined)
        this.log(record.id, `worker ${claims.worker} uploaded a result for job ${jobId} once it was no longer the agent's; not kept`);
      return {
        ok: false,
        status: 409,
        message: `job ${jobId} is no longer its agent's (the agent settled, or its job was put on the queue again); nothing was kept`,
      };
    }
    const refuse = (refused: string): UploadAdmission => {
      const kept = keepRefusedUpload(this.dirs.evidence, body, jobId, run, {
        ...claims,
        refused,
        at: new Date(this.core.clock()).toISOString(),
        ...(from === undefined ? {} : { from }),
      });
      this.log(record.id, `an upload for job ${jobId} (run ${run}) as worker ${claims.worker} was refused: ${refused}; kept in ${kept}`);
      return { ok: false, status: 403, refused };
    };
    const key = this.roster.keyOf(claims.worker);
    if (key === undefined) return refuse(`worker ${claims.worker} is not enrolled: its key is not listed in .cairn/config.json`);
    if (!verifyText(key, uploadSigningText(jobId, run, claims.sha256, claims.head, record.tokenHash), claims.signature))
      return refuse(`the upload's signature does not verify with worker ${claims.worker}'s enrolled key`);
    let job: Job | undefined;
    try {
      job = await answered(this.queue.getJob(jobId));
    } catch (error) {
      return { ok: false, status: 503, message: `the queue does not answer: ${(error as Error).message}` };
    }
    if (job === undefined || job.attemptsStarted !== run)
      return {
        ok: false,
        status: 409,
        message: `run ${run} of job ${jobId} is over${job === undefined ? '' : ` (the job is at run ${job.attemptsStarted})`}; nothing was kept`,
      };
    const claim = record.remoteJob.claim?.run === run ? record.remoteJob.claim : this.claimOf(job, record);
    if (claim !== undefined && claim.worker !== claims.worker)
      return refuse(`run ${run} of job ${jobId} was taken by worker ${claim.worker}, not by worker ${claims.worker}`);
    return { ok: true };
  }

  /** Follows again the agents a previous coordinator left running on workers (queued ones come from the queue's scheduler). */
  resume(): void {
    // and drops what earlier coordinators kept of agents that have settled since
    dropDeadUploads(this.dirs.uploads, (id) => this.onQueue(this.core.store.get(id)));
    for (const record of this.core.store.list(['running'])) if (record.remoteJob !== undefined) void this.run(record.id);
  }

  /** Runs a queued agent: on the queue for workers (followed until it settles), or here (a revision, a reviewer, no worker). */
  run(id: string): Promise<void> {
    return Promise.race([this.dispatch(id), this.halted]);
  }

  private async dispatch(id: string): Promise<void> {
    const record = this.core.store.require(id);
    if (record.state === 'queued' && record.remoteJob === undefined) {
      // a revision keeps its overlay here; a reviewer reads the proposal under review here, and its decision acts here
      if (record.journalHead !== undefined || record.role === 'reviewer') return runAgent(this.core, id);
      try {
        await this.enqueue(record, 1);
      } catch (error) {
        failRemoteAgent(this.core, id, { code: 'remote', message: `the agent could not be put on the queue: ${(error as Error).message}` });
        return;
      }
    } else if (!this.onQueue(record)) return;
    let following = this.following.get(id);
    if (following === undefined) {
      following = this.follow(id).finally(() => this.following.delete(id));
      this.following.set(id, following);
    }
    if ((await following) === 'here') await runAgent(this.core, id);
  }

  /** Stops following (agents stay queued or running, and are followed again by the next coordinator) and disconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.halt();
    for (const wake of this.waiting.values()) wake();
    await closeQueue([...this.following.values()], this.events, this.queue);
  }

  /** True for an agent on the queue or running on a worker. */
  private onQueue(record: AgentRecord | undefined): boolean {
    return (record?.state === 'queued' || record?.state === 'running') && record.remoteJob !== undefined;
  }

  /**
   * Puts attempt `attempt` of the agent on the queue; `lost` counts its attempts lost from the queue so far. An
   * agent a worker had goes back to `queued` with `why`.
   */
  private async enqueue(record: AgentRecord, attempt: number, lost = 0, why?: string): Promise<void> {
    const snapshot = await this.snapshots.current();
    const { jobId, data, token } = offerJob(
      this.core,
      record,
      attempt,
      snapshot.hash,
      this.key.secret,
      this.options.tokenTtlMs ?? 3_600_000,
    );
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
  private backToQueued(id: string, patch: AgentPatch, why: string): void {
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

  /**
   * Follows the agent's job until the agent settles: `here` when it is to run in this process instead (no trusted
   * worker took it, and the project says so). A reject stops following it (the worker's result is then never read).
   */
  private async follow(id: string): Promise<'settled' | 'here'> {
    // registered as running here only while a worker has it: a reject then stops following it; a queued agent
    // is rejected as any queued agent is, and its job taken off the queue
    let held: { signal: AbortSignal; end: () => void } | undefined;
    const wakeOnStop = () => {
      const jobId = this.core.store.get(id)?.remoteJob?.id;
      if (jobId !== undefined) this.waiting.get(jobId)?.();
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
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 1000));
      return 'settled';
    } finally {
      held?.signal.removeEventListener('abort', wakeOnStop);
      held?.end();
      // an agent that settled leaves no upload behind (one still on the queue is followed again by the next coordinator)
      if (!this.onQueue(this.core.store.get(id))) dropDeadUploads(this.dirs.uploads, (agent) => agent !== id);
    }
  }

  /** `hold(running)` registers the agent as running in this process while it is, and says whether a stop was asked. */
  private async followJob(id: string, hold: (running: boolean) => AbortSignal | undefined): Promise<'settled' | 'here'> {
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
      if (!this.onQueue(record)) {
        // moved by someone else while its job waits (a reject of a queued agent): the job leaves the queue
        await this.withdraw(record);
        return 'settled';
      }
      const { id: jobId, attempt, lost = 0 } = record.remoteJob;
      let job: Job | undefined;
      let state: string;
      try {
        job = await answered(this.queue.getJob(jobId));
        state = job === undefined ? 'lost' : await answered(job.getState());
      } catch {
        // Redis away: a queued agent says so past the wait (and runs here under run-here); a running one waits
        if (record.state === 'queued' && (await this.withoutQueue(record)) === 'here') return 'here';
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
        this.log(id, `job ${jobId} was lost from the queue; it is put there again`);
        await this.enqueue(record, attempt + 1, lost + 1, `job ${jobId} was lost from the queue; it is put there again`).catch(() =>
          this.pause(jobId),
        );
        continue;
      }
      // registered as running in the same tick as it moves, so a reject from then on stops it here
      if (state === 'active') hold(this.taken(record, job).state === 'running');
      else if (state === 'completed' || state === 'failed') {
        // the job as read before its state may predate its end: read it again for the result
        const ended = await answered(this.queue.getJob(jobId)).catch(() => undefined);
        if (ended === undefined) {
          await this.pause(jobId);
          continue;
        }
        // a run so quick that its taking was never seen
        const taken = this.taken(record, ended);
        if (hold(taken.state === 'running')?.aborted !== false) continue;
        if (state === 'completed') {
          if ((await this.settle(taken, ended)) === 'requeued') continue;
          return 'settled';
        }
        if ((await this.settleFailed(taken, ended)) === 'requeued') continue;
        return 'settled';
      } else {
        // waiting: for a worker, or again after the worker that had it stopped renewing its lock
        if (record.state === 'running')
          this.backToQueued(
            id,
            { remoteJob: { id: jobId, attempt, queuedAt: this.core.clock(), ...(lost === 0 ? {} : { lost }) } },
            [
              `${record.worker === undefined ? 'the worker' : `worker ${record.worker}`} let go of job ${jobId} (it stopped renewing its lock);`,
              'it waits for another worker',
            ].join(' '),
          );
        else if ((await this.withoutWorker(record)) === 'here') return 'here';
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
    const claim = this.claimOf(job, record);
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
      this.log(record.id, claim === undefined ? `job ${job.id!} was taken` : `running on worker ${claim.worker}`);
      return moved;
    }
    if (claim === undefined || (record.worker === claim.worker && record.remoteJob?.claim?.run === claim.run)) return record;
    const updated = this.core.store.update(record.id, { worker: claim.worker, remoteJob }, ['running']);
    this.log(record.id, `running on worker ${claim.worker}`);
    return updated;
  }

  /** The worker whose claim of the job's current run (in its progress) verifies with its enrolled key, and the run. */
  private claimOf(job: Job, record: AgentRecord): { run: number; worker: string } | undefined {
    const progress = job.progress as Partial<RemoteProgress> | undefined;
    if (typeof progress !== 'object' || progress === null || record.tokenHash === undefined) return undefined;
    const { worker, run, claim } = progress;
    if (typeof worker !== 'string' || typeof claim !== 'string' || run !== job.attemptsStarted) return undefined;
    let key: Uint8Array | undefined;
    try {
      key = this.roster.keyOf(worker);
    } catch {
      return undefined;
    }
    // a job's progress repeats its claim: `verifyText` checks each signature once
    if (key === undefined || !verifyText(key, claimSigningText(job.id!, run, record.tokenHash), claim)) return undefined;
    return { run, worker };
  }

  /**
   * A queued agent no worker has taken: past `workerWaitMs` with no trusted worker connected, its reason says
   * so (once, with an `agent.waiting` event), and under `run-here` its job leaves the queue and it runs here.
   */
  private async withoutWorker(record: AgentRecord): Promise<'wait' | 'here'> {
    const bound = this.options.workerWaitMs ?? WORKER_WAIT_MS;
    if (this.core.clock() - (record.remoteJob?.queuedAt ?? record.updatedAt) < bound) return 'wait';
    const connected = await this.connectedWorkers();
    const trusted = connected?.filter((name) => this.enrolled(name) && this.roster.untrusted(name) === undefined);
    if (trusted !== undefined && trusted.length > 0) {
      // a worker came: it takes the agent when it has a free slot
      if (record.reason?.startsWith(NO_WORKER) === true || record.reason?.startsWith(NO_QUEUE) === true)
        this.core.store.update(record.id, { reason: undefined }, ['queued']);
      return 'wait';
    }
    const runHere = this.options.withoutWorkers === 'run-here';
    const untrusted = Object.keys(this.roster.marks());
    const seconds = Math.round(bound / 1000);
    const reason = [
      `${NO_WORKER} took it in ${seconds} s, and none is connected to the queue`,
      untrusted.length === 0 ? '' : ` (untrusted: ${untrusted.join(', ')})`,
      runHere ? '; it runs on the coordinator instead' : '',
    ].join('');
    const hint = [
      `start a worker${this.workerCommand === undefined ? '' : ` (${this.workerCommand})`}`,
      untrusted.length === 0 ? '' : `, or clear an untrusted one (\`cairn worker trust ${untrusted[0]}\`)`,
      runHere
        ? ''
        : '; or let the coordinator run such agents itself: "withoutWorkers": "run-here" in .cairn/config.json, or `cairn up --without-workers run-here`',
    ].join('');
    this.say(record, reason, hint, runHere);
    if (!runHere || !(await this.withdraw(record))) return 'wait';
    // run here as an agent of this process: no job, no token
    this.core.store.update(record.id, { remoteJob: undefined, tokenHash: undefined }, ['queued']);
    return 'here';
  }

  /**
   * A queued agent whose queue does not answer (Redis away): past `workerWaitMs` its reason says so (once, with an
   * `agent.waiting` event); under `run-here` it runs here, its job left behind (a worker that takes it once Redis
   * is back has its upload refused: the job is no longer the agent's).
   */
  private async withoutQueue(record: AgentRecord): Promise<'wait' | 'here'> {
    const bound = this.options.workerWaitMs ?? WORKER_WAIT_MS;
    if (this.core.clock() - (record.remoteJob?.queuedAt ?? record.updatedAt) < bound) return 'wait';
    const runHere = this.options.withoutWorkers === 'run-here';
    const queue = redactedUrl(this.options.queue);
    const reason = `${NO_QUEUE}${queue} does not answer, so no worker can take it${runHere ? '; it runs on the coordinator instead' : ''}`;
    this.say(
      record,
      reason,
      `start Redis again (\`redis-cli -u ${queue} ping\` says whether it answers); queued agents then go to the workers`,
      runHere,
    );
    if (!runHere) return 'wait';
    this.core.store.update(record.id, { remoteJob: undefined, tokenHash: undefined }, ['queued']);
    return 'here';
  }

  /** Sets a queued agent's reason for waiting, and says it (`agent.waiting`) when it is new. */
  private say(record: AgentRecord, reason: string, hint: string, runHere: boolean): void {
    if (record.reason === reason) return;
    this.core.store.update(record.id, { reason }, ['queued']);
    this.core.emit({
      type: 'agent.waiting',
      time: new Date(this.core.clock()).toISOString(),
      agentId: record.id,
      reason,
      hint,
      then: runHere ? 'run-here' : 'wait',
    });
  }

  /** The names of the workers connected to the queue now (undefined when Redis cannot say), asked at most once a second. */
  private connectedWorkers(): Promise<string[] | undefined> {
    const now = this.core.clock();
    if (this.connected !== undefined && now - this.connected.at < WORKERS_FRESH_MS) return this.connected.names;
    const names = answered(this.queue.getWorkers())
      .then((clients) => {
        const raw = clients.map((client) => String((client as { rawname?: unknown }).rawname ?? ''));
        if (clients.length > 0 && raw.every((name) => name === '')) return undefined;
        return raw.flatMap((name) => /:w:(.+)$/.exec(name)?.[1] ?? []);
      })
      .catch(() => undefined);
    this.connected = { at: now, names };
    return names;
  }

  private enrolled(name: string): boolean {
    try {
      return this.roster.keyOf(name) !== undefined;
    } catch {
      return false;
    }
  }

  /** Takes the agent's job off the queue if no worker has it: true when it is off (or gone). */
  private async withdraw(record: AgentRecord): Promise<boolean> {
    const jobId = record.remoteJob?.id;
    if (jobId === undefined) return true;
    try {
      if ((await answered(this.queue.remove(jobId))) === 1) return true;
      return (await answered(this.queue.getJob(jobId))) === undefined;
    } catch {
      return false;
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
    const said = `worker ${worker} is untrusted (${why}): its result is not looked at, and the agent goes back on the queue`;
    this.log(record.id, said);
    await this.enqueue(record, attempt + 1, record.remoteJob?.lost, said);
    return true;
  }

  /** A failed job: back on the queue when an untrusted worker had it; else the agent fails (refused upload: unverified). */
  private async settleFailed(record: AgentRecord, job: Job): Promise<'settled' | 'requeued'> {
    const jobId = job.id!;
    const by = workerOf(job) ?? record.worker;
    if (by !== undefined && (await this.requeueFromUntrusted(record, by))) return 'requeued';
    const reason = job.failedReason ?? 'the job failed';
    // the worker that had the job says its own upload was refused: the refusal kept names it
    const refused =
      by !== undefined && reason.startsWith(UPLOAD_REFUSED)
        ? refusedUploadOf(this.dirs.evidence, jobId, job.attemptsStarted, by)
        : undefined;
    if (by !== undefined && refused !== undefined) {
      this.roster.distrust(by, `${jobId}: ${refused.refused}`);
      failRemoteAgent(this.core, record.id, {
        code: 'unverified',
        message: `the result of worker ${by} was refused: ${refused.refused}`,
        hint: `evidence kept in ${refused.path}; the worker is untrusted until \`cairn worker trust ${by}\``,
      });
      return 'settled';
    }
    failRemoteAgent(this.core, record.id, { code: 'remote', message: `${by === undefined ? '' : `worker ${by}: `}${reason}` });
    return 'settled';
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

/** The worker a job's progress names, if any (as it says: only a claim verified by `claimOf` proves it). */
function workerOf(job: Job): string | undefined {
  const worker = (job.progress as { worker?: unknown } | undefined)?.worker;
  return typeof worker === 'string' ? worker : undefined;
}
