import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type AgentDispatch, type ProjectCore, runAgent } from '@cairn/orchestrator/engine';
import { Queue, QueueEvents } from 'bullmq';
import { AgentQueue } from './agent-queue.js';
import { dropDeadUploads } from './dead-uploads.js';
import { JobFollower, onQueue } from './job-follower.js';
import { JobSettlement } from './job-settlement.js';
import { closeQueue } from './queue-answer.js';
import type { WithoutWorkers } from './queue-settings.js';
import { redisConnection } from './redis-connection.js';
import { type CoordinatorInfo, queueNameOf } from './remote-job.js';
import { failRemoteAgent } from './result-intake.js';
import { loadSigningKey, type SigningKey } from './signing-key.js';
import { SnapshotMaker } from './snapshots.js';
import { admitUpload } from './upload-gate.js';
import type { UploadAdmission, UploadClaims } from './worker-endpoint.js';
import { WorkerRoster } from './worker-roster.js';
import { WorkerWait } from './worker-wait.js';

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
 *
 * Its parts: `AgentQueue` offers attempts, `JobFollower` follows each job, `JobSettlement` verifies and adopts
 * results, `WorkerWait` speaks for agents no worker takes, `admitUpload` guards uploads.
 */
export class Coordinator implements AgentDispatch {
  readonly slots = 1024;
  readonly snapshots: SnapshotMaker;
  readonly roster: WorkerRoster;
  private readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly key: SigningKey;
  private readonly dirs: ReturnType<typeof remoteDirs>;
  private readonly agents: AgentQueue;
  private readonly follower: JobFollower;
  private readonly following = new Map<string, Promise<'settled' | 'here'>>();
  /** Settles when `stop` begins: no one waits on a follower that waits on a Redis that is away. */
  private halt!: () => void;
  private readonly halted = new Promise<void>((resolve) => (this.halt = resolve));
  /** How a worker is started for this coordinator, for the hint of an agent no worker takes. */
  private workerCommand: string | undefined;

  constructor(
    private readonly core: ProjectCore,
    options: CoordinatorOptions,
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
    const log = (id: string, message: string) => this.log(id, message);
    this.agents = new AgentQueue(
      core,
      this.queue,
      this.snapshots,
      { secret: this.key.secret, tokenTtlMs: options.tokenTtlMs ?? 3_600_000 },
      log,
    );
    const places = {
      uploads: this.dirs.uploads,
      evidence: this.dirs.evidence,
      snapshots: this.snapshots,
      coordinatorKey: this.key.publicKey,
    };
    this.follower = new JobFollower(core, {
      queue: this.queue,
      roster: this.roster,
      agents: this.agents,
      settlement: new JobSettlement(
        core,
        this.roster,
        places,
        (record, attempt, lost, why) => this.agents.put(record, attempt, lost, why),
        log,
      ),
      wait: new WorkerWait(core, this.queue, this.roster, options, () => this.workerCommand),
      uploadsDir: this.dirs.uploads,
      pollMs: options.pollMs ?? 1000,
      log,
    });
    for (const name of ['completed', 'failed', 'progress', 'active', 'stalled', 'waiting'] as const)
      this.events.on(name, ({ jobId }: { jobId: string }) => this.follower.wake(jobId));
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

  /** Whether a worker's upload is taken (see `admitUpload`). */
  admitUpload(jobId: string, run: number, claims: UploadClaims, body: string, from?: string): Promise<UploadAdmission> {
    const needs = {
      store: this.core.store,
      queue: this.queue,
      roster: this.roster,
      evidenceDir: this.dirs.evidence,
      clock: this.core.clock,
      log: (id: string, message: string) => this.log(id, message),
    };
    return admitUpload(needs, jobId, run, claims, body, from);
  }

  /** Follows again the agents a previous coordinator left running on workers (queued ones come from the queue's scheduler). */
  resume(): void {
    // and drops what earlier coordinators kept of agents that have settled since
    dropDeadUploads(this.dirs.uploads, (id) => onQueue(this.core.store.get(id)));
    for (const record of this.core.store.list(['running'])) if (record.remoteJob !== undefined) void this.run(record.id);
  }

  /** Runs a queued agent: on the queue for workers (followed until it settles), or here (a revision, a reviewer, no worker). */
  run(id: string): Promise<void> {
    return Promise.race([this.dispatch(id), this.halted]);
  }

  /** Stops following (agents stay queued or running, and are followed again by the next coordinator) and disconnects. */
  async stop(): Promise<void> {
    this.halt();
    this.follower.stop();
    await closeQueue([...this.following.values()], this.events, this.queue);
  }

  private async dispatch(id: string): Promise<void> {
    const record = this.core.store.require(id);
    if (record.state === 'queued' && record.remoteJob === undefined) {
      // a revision keeps its overlay here; a reviewer reads the proposal under review here, and its decision acts here
      if (record.journalHead !== undefined || record.role === 'reviewer') return runAgent(this.core, id);
      try {
        await this.agents.put(record, 1);
      } catch (error) {
        failRemoteAgent(this.core, id, { code: 'remote', message: `the agent could not be put on the queue: ${(error as Error).message}` });
        return;
      }
    } else if (!onQueue(record)) return;
    let following = this.following.get(id);
    if (following === undefined) {
      following = this.follower.follow(id).finally(() => this.following.delete(id));
      this.following.set(id, following);
    }
    if ((await following) === 'here') await runAgent(this.core, id);
  }

  private log(id: string, message: string): void {
    this.core.emit({ type: 'agent.log', time: new Date(this.core.clock()).toISOString(), agentId: id, message });
  }
}
