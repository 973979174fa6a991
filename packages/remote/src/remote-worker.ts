import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CairnError } from '@cairn/api';
import { createSandbox, type Sandbox } from '@cairn/sandbox';
import { type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import { governanceHash, tokenHash, verifyToken } from './capability-token.js';
import { probeQueue, redactedUrl } from './queue-probe.js';
import { redisConnection } from './redis-connection.js';
import { type CoordinatorInfo, describeJob, parseJobData, type RemoteProgress, type RemoteResult } from './remote-job.js';
import { uploadResult } from './result-upload.js';
import { type RemoteOutcome, SnapshotProjects } from './run-remote-agent.js';
import { parsePublicKey, type SigningKey, signText } from './signing-key.js';
import { SnapshotCache } from './snapshot-cache.js';
import { hashFile } from './snapshots.js';
import { claimSigningText, uploadSigningText } from './upload-signature.js';
import { type CoordinatorLink, readErrorAnswer, readWorkerAnswer, WORKER_WIRE, workerRequest } from './worker-wire.js';

/** Options of `startWorker`. */
export interface WorkerOptions {
  /** `redis://HOST:PORT` of the coordinator's queue. */
  queue: string;
  /** The coordinator's HTTP endpoint for workers. */
  coordinator: string;
  /** The bearer token the coordinator gave out. */
  bearer: string;
  /** This worker's own folder: snapshots, jobs, and the home of each job's project. */
  home: string;
  /** The name the coordinator lists this worker's key under. */
  name: string;
  key: SigningKey;
  /** Jobs run at once. */
  concurrency: number;
  /** How long a job's lock holds without being renewed (ms); a worker that stops renewing it loses the job. */
  lockMs?: number;
  /** How long a stop lets the running agents finish before it leaves them (ms; default two minutes). */
  graceMs?: number;
  /** Each job taken and finished, and the queue's health, for the worker's log. */
  onJob?: (line: string) => void;
  clock?: () => number;
}

/** The default of `graceMs`. */
export const STOP_GRACE_MS = 120_000;

/** How often at most a job's progress is reported. */
const PROGRESS_EVERY_MS = 500;

/** How long a worker that stops waits for Redis (handing a job back, closing) before it goes anyway. */
const REDIS_GRACE_MS = 3000;

/** A worker taking jobs from the coordinator's queue. */
export interface RunningWorker {
  /**
   * Stops taking jobs, lets the running agents finish (for `graceMs` at most), leaves those still running
   * (`leave`), and disconnects, whatever state Redis is in. Resolves with how many agents it left.
   */
  stop(): Promise<{ left: number }>;
  /**
   * Leaves the running agents now: each is stopped here and its job handed back to the queue for another worker
   * (at once while Redis answers; otherwise BullMQ's stalled check puts it back once its lock expires).
   * Resolves with how many it left; `stop` then goes on to disconnect.
   */
  leave(): Promise<number>;
  /** How many agents run here now. */
  running(): number;
  /**
   * Settles with the coordinator's reason once it refuses a result because it no longer trusts this worker: the
   * worker has stopped taking jobs by then (the refused agent goes back on the queue, for another worker).
   */
  distrusted: Promise<string>;
}

/** What every job of a worker runs with. */
interface JobContext {
  options: WorkerOptions;
  link: CoordinatorLink;
  sandbox: Sandbox;
  snapshots: SnapshotCache;
  /** The projects its jobs run in, one per snapshot. */
  projects: SnapshotProjects;
  clock: () => number;
  coordinatorKey: Uint8Array;
  /** Called when the coordinator refuses a result because it does not trust this worker. */
  distrusted(reason: string): void;
}

/** A job running here: how to stop its agent, and when it is over. */
interface ActiveJob {
  job: Job;
  token: string | undefined;
  stop: AbortController;
  /** Settles when the job is handed back to the queue (the processor then lets go of it at once). */
  left: Promise<void>;
  leave(): void;
}

/**
 * `cairn worker`: asks the coordinator for its queue and key, then takes agents from the queue and runs each
 * as a local pool does (`SnapshotProjects`), uploads the agent's database with its signature, and completes
 * the job. The job's progress names the worker, with its signed claim of the run, and how far the agent got.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const clock = options.clock ?? Date.now;
  await probeQueue(options.queue);
  const link: CoordinatorLink = { url: options.coordinator, bearer: options.bearer };
  const info = await coordinatorInfo(link, options.name);
  const coordinatorKey = parsePublicKey(info.key);
  if (!coordinatorKey.ok) throw new CairnError('CAIRN_REMOTE', `the coordinator's key is not usable: ${coordinatorKey.reason}`);
  const sandbox = createSandbox({ poolSize: options.concurrency });
  let tellDistrusted!: (reason: string) => void;
  const distrusted = new Promise<string>((resolve) => (tellDistrusted = resolve));
  let worker: Worker | undefined;
  const context: JobContext = {
    options,
    link,
    sandbox,
    snapshots: new SnapshotCache(join(options.home, 'snapshots'), link),
    // this process's own: a worker killed mid-job leaves it for the next start to remove
    projects: new SnapshotProjects(join(options.home, 'projects'), {
      secret: options.key.secret,
      worker: options.name,
      home: join(options.home, 'home'),
      sandbox,
    }),
    clock,
    coordinatorKey: coordinatorKey.key,
    distrusted: (reason) => {
      // no more jobs for a worker whose results the coordinator will not take
      void worker?.pause(true).catch(() => undefined);
      tellDistrusted(reason);
    },
  };
  const active = new Map<string, ActiveJob>();
  let stopping = false;
  const say = (line: string) => options.onJob?.(line);
  const lockDuration = options.lockMs ?? 30_000;
  const processor = async (job: Job, token?: string): Promise<RemoteResult> => {
    if (stopping) {
      // taken as the worker stops: handed back for another worker, not run
      await withinGrace(job.moveToWait(token));
      throw new WaitingError();
    }
    let leave!: () => void;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const entry: ActiveJob = { job, token, stop: new AbortController(), left, leave };
    active.set(job.id!, entry);
    try {
      const outcome = await Promise.race([runJob(job, context, entry.stop.signal), left.then(() => 'left' as const)]);
      if (outcome === 'left') throw new WaitingError();
      say(`${describeJob(job.id!)} ${outcome.state === 'reviewing' ? 'done' : `failed: ${outcome.reason}`}`);
      return outcome;
    } catch (error) {
      if (!(error instanceof WaitingError)) say(`${describeJob(job.id!)} failed: ${(error as Error).message}`);
      throw error;
    } finally {
      active.delete(job.id!);
    }
  };
  worker = new Worker(info.queue, processor, {
    connection: redisConnection(options.queue),
    // its connections are named for it: the coordinator sees which workers are connected
    name: options.name,
    concurrency: options.concurrency,
    lockDuration,
    // checked twice a lock's life: a dead worker's job waits again between a half and one and a half lock durations after
    stalledInterval: Math.max(1000, Math.round(lockDuration / 2)),
    maxStalledCount: 1,
  });
  // Redis away: said once, then the connection retries quietly (with backoff) until it answers again
  let down = false;
  worker.on('error', (error) => {
    if (!isConnectionError(error)) return say(`queue: ${error.message}`);
    if (down) return;
    down = true;
    say(`the queue at ${redactedUrl(options.queue)} does not answer (${error.message}); retrying quietly until it does`);
  });
  worker.getBackend().on('ready', () => {
    if (!down) return;
    down = false;
    say('the queue answers again');
  });
  await worker.waitUntilReady();
  const taking = worker;
  const leaveAll = async (): Promise<number> => {
    const jobs = [...active.values()];
    for (const entry of jobs) entry.stop.abort(new Error('the worker left it'));
    // handed back at once, each; where Redis does not answer, its lock expires and the stalled check does it
    await Promise.all(jobs.map((entry) => withinGrace(entry.job.moveToWait(entry.token))));
    for (const entry of jobs) entry.leave();
    return jobs.length;
  };
  let stopped: Promise<{ left: number }> | undefined;
  return {
    running: () => active.size,
    leave: leaveAll,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        // no job is fetched from here on (a fetch under way hands its job back); nothing here waits for Redis
        void taking.pause(true).catch(() => undefined);
        await withinGrace(new Promise(() => undefined), options.graceMs ?? STOP_GRACE_MS, () => active.size === 0);
        const left = active.size > 0 ? await leaveAll() : 0;
        let closed = false;
        // one bound for Redis in all: a close it does not answer within it is cut off, not waited for again
        await Promise.all([
          withinGrace(taking.close(left > 0).then(() => (closed = true))),
          withinGrace(context.projects.close().then(() => sandbox.close())),
        ]);
        if (!closed) void taking.disconnect().catch(() => undefined);
        return { left };
      })()),
    distrusted,
  };
}

/**
 * Waits for `work`, `ms` at most (Redis away must not hold a stop); resolves either way. `done`, when given, is
 * asked every 100 ms whether the wait is over before `work` settles.
 */
async function withinGrace(work: Promise<unknown>, ms = REDIS_GRACE_MS, done?: () => boolean): Promise<void> {
  if (done?.() === true) return;
  let timer: NodeJS.Timeout | undefined;
  let poll: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
      if (done !== undefined) poll = setInterval(() => done() && resolve(undefined), 100);
    }),
  ]);
  clearTimeout(timer);
  clearInterval(poll);
}

/** True for an error of the connection to Redis (refused, reset, closed), as opposed to one of a command. */
function isConnectionError(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return (
    (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)$/.test(code)) ||
    /Connection is closed|connect E[A-Z]+/.test(error.message)
  );
}

/** Asks the coordinator which queue to take jobs from and which key signs its tokens. */
async function coordinatorInfo(link: CoordinatorLink, name: string): Promise<CoordinatorInfo> {
  const request = workerRequest(link, WORKER_WIRE.info, [name]);
  let response: Response;
  try {
    response = await fetch(request.url, request.init);
  } catch (error) {
    throw new CairnError('CAIRN_REMOTE', `the coordinator at ${link.url} does not answer: ${(error as Error).message}`, {
      hint: 'is `cairn up --queue … --serve-workers …` running there, and reachable from here?',
    });
  }
  const text = await response.text().catch(() => '');
  if (!response.ok)
    throw new CairnError(
      'CAIRN_REMOTE',
      `the coordinator at ${link.url} refused this worker (${response.status}): ${readErrorAnswer(text)?.message ?? 'no queue named'}`,
      { hint: 'use the --token the coordinator printed' },
    );
  const info = readWorkerAnswer(WORKER_WIRE.info, text, link.url);
  if (info.untrusted !== undefined)
    throw new CairnError('CAIRN_REMOTE', `the coordinator at ${link.url} does not trust worker ${name}: ${info.untrusted}`, {
      hint: `a person at the coordinator clears it with \`cairn worker trust ${name}\``,
    });
  return { queue: info.queue, key: info.key };
}

async function runJob(job: Job, context: JobContext, signal: AbortSignal): Promise<RemoteResult> {
  const { options } = context;
  const parsed = parseJobData(job.data);
  if (!parsed.ok) throw new UnrecoverableError(parsed.reason);
  const data = parsed.data;
  const token = verifyToken(data.token, context.coordinatorKey, context.clock());
  if (!token.ok) throw new UnrecoverableError(`${token.reason}; the worker did not run the job`);
  if (governanceHash(data.governance) !== token.claims.governance)
    throw new UnrecoverableError("the job's governance does not hash to its capability token's claim; the worker did not run the job");
  // the job's run (BullMQ's attemptsStarted): more than 1 when a worker that had it stopped
  const run = job.attemptsStarted;
  const jobId = job.id!;
  const hashOfToken = tokenHash(data.token);
  options.onJob?.(
    `${describeJob(jobId)} taken${run > 1 ? ' again (the worker that had it stopped)' : ''}: ${data.agent.task.slice(0, 60)}`,
  );
  let events = 0;
  const claim = signText(options.key.secret, claimSigningText(jobId, run, hashOfToken));
  const report = (last: string) => {
    const progress: RemoteProgress = { worker: options.name, run, claim, events, last };
    return job.updateProgress(progress as never).catch(() => undefined);
  };
  await report('taken');
  // how far the agent got, twice a second at most (each report is a write to Redis and news to the coordinator)
  let last = 'taken';
  let due: NodeJS.Timeout | undefined;
  const reportSoon = (type: string) => {
    last = type;
    due ??= setTimeout(() => {
      due = undefined;
      void report(last);
    }, PROGRESS_EVERY_MS);
  };
  let snapshotPath: string;
  try {
    snapshotPath = await context.snapshots.get(data.snapshot);
  } catch (error) {
    throw new UnrecoverableError((error as Error).message);
  }
  let outcome: RemoteOutcome | undefined;
  try {
    outcome = await context.projects.run(data.snapshot, snapshotPath, {
      data,
      signal,
      onEvent: (event) => {
        events++;
        reportSoon(event.type);
      },
    });
    const { record, database } = outcome;
    if (signal.aborted) throw new Error('the worker left the agent');
    if (record.state !== 'reviewing' || record.journalHead === undefined) {
      const reason = record.reason ?? record.failure?.message ?? `the agent ended ${record.state}`;
      return { state: 'failed', worker: options.name, attempt: run, code: record.failure?.code ?? 'internal', reason };
    }
    const sha256 = await hashFile(database);
    const head = record.journalHead;
    const signature = signText(options.key.secret, uploadSigningText(jobId, run, sha256, head, hashOfToken));
    const claims = { worker: options.name, sha256, head, signature };
    // the coordinator takes a result until the job's token expires: until then, a result is worth keeping at
    const uploaded = await uploadResult(context.link, jobId, run, claims, readFileSync(database), {
      deadline: token.claims.expiresAt,
      signal,
      clock: context.clock,
      ...(options.onJob === undefined ? {} : { onJob: options.onJob }),
    });
    if (!uploaded.taken) {
      context.distrusted(uploaded.untrusted);
      throw new UnrecoverableError(`the coordinator does not trust worker ${options.name}: ${uploaded.untrusted}`);
    }
    const { calls, wallMs, repairs } = record.spent;
    return {
      state: 'reviewing',
      worker: options.name,
      attempt: run,
      summary: record.summary ?? '',
      calls,
      wallMs,
      repairs,
      runs: record.runs,
    };
  } finally {
    clearTimeout(due);
    outcome?.release();
  }
}
