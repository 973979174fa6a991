import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import { createSandbox, type Sandbox } from '@cairn/sandbox';
import { CairnError } from '../api/errors.js';
import { verifyToken } from './capability-token.js';
import { probeQueue } from './queue-probe.js';
import { redisConnection } from './redis-connection.js';
import { type CoordinatorInfo, parseJobData, type RemoteProgress, type RemoteResult } from './remote-job.js';
import { runRemoteAgent } from './run-remote-agent.js';
import { parsePublicKey, type SigningKey, signText } from './signing-key.js';
import { SnapshotCache } from './snapshot-cache.js';
import { hashFile } from './snapshots.js';
import { uploadSigningText } from './upload-signature.js';

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
  /** Each job taken and finished, for the worker's log. */
  onJob?: (line: string) => void;
  clock?: () => number;
}

/** A worker taking jobs from the coordinator's queue. */
export interface RunningWorker {
  /** Stops taking jobs, lets the running ones finish, and disconnects. */
  stop(): Promise<void>;
  /**
   * Settles with the coordinator's reason once it refuses a result because it no longer trusts this worker: the
   * worker has stopped taking jobs by then (the refused agent goes back on the queue, for another worker).
   */
  distrusted: Promise<string>;
}

/** What every job of a worker runs with. */
interface JobContext {
  options: WorkerOptions;
  sandbox: Sandbox;
  snapshots: SnapshotCache;
  clock: () => number;
  coordinatorKey: Uint8Array;
  /** Called when the coordinator refuses a result because it does not trust this worker. */
  distrusted(reason: string): void;
}

/** A result the coordinator refused because it does not trust the worker that sends it. */
class DistrustedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * `cairn worker`: asks the coordinator for its queue and key, then takes agents from the queue and runs each
 * as a local pool does (`runRemoteAgent`), uploads the agent's database with its signature, and completes
 * the job. The job's progress names the worker and how far the agent got.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const clock = options.clock ?? Date.now;
  await probeQueue(options.queue);
  const info = await coordinatorInfo(options);
  const coordinatorKey = parsePublicKey(info.key);
  if (!coordinatorKey.ok) throw new CairnError('CAIRN_REMOTE', `the coordinator's key is not usable: ${coordinatorKey.reason}`);
  const sandbox = createSandbox({ poolSize: options.concurrency });
  let tellDistrusted!: (reason: string) => void;
  const distrusted = new Promise<string>((resolve) => (tellDistrusted = resolve));
  let worker: Worker | undefined;
  const context: JobContext = {
    options,
    sandbox,
    snapshots: new SnapshotCache(join(options.home, 'snapshots'), options.coordinator, options.bearer),
    clock,
    coordinatorKey: coordinatorKey.key,
    distrusted: (reason) => {
      // no more jobs for a worker whose results the coordinator will not take
      void worker?.pause(true).catch(() => undefined);
      tellDistrusted(reason);
    },
  };
  const lockDuration = options.lockMs ?? 30_000;
  worker = new Worker(info.queue, (job: Job) => runJob(job, context), {
    connection: redisConnection(options.queue),
    concurrency: options.concurrency,
    lockDuration,
    stalledInterval: lockDuration,
    maxStalledCount: 1,
  });
  worker.on('error', (error) => options.onJob?.(`queue: ${error.message}`));
  worker.on('failed', (job, error) => options.onJob?.(`${job?.id ?? '?'} failed: ${error.message}`));
  worker.on('completed', (job) => options.onJob?.(`${job.id ?? '?'} done`));
  await worker.waitUntilReady();
  const taking = worker;
  return {
    stop: async () => {
      await taking.close();
      await sandbox.close();
    },
    distrusted,
  };
}

/** Asks the coordinator which queue to take jobs from and which key signs its tokens. */
async function coordinatorInfo(options: WorkerOptions): Promise<CoordinatorInfo> {
  let response: Response;
  try {
    response = await fetch(`${options.coordinator}/info?worker=${encodeURIComponent(options.name)}`, {
      headers: { authorization: `Bearer ${options.bearer}` },
    });
  } catch (error) {
    throw new CairnError('CAIRN_REMOTE', `the coordinator at ${options.coordinator} does not answer: ${(error as Error).message}`, {
      hint: 'is `cairn up --queue … --serve-workers …` running there, and reachable from here?',
    });
  }
  const body = (await response.json().catch(() => undefined)) as
    | (Partial<CoordinatorInfo> & { message?: string; untrusted?: unknown })
    | undefined;
  if (response.ok && typeof body?.untrusted === 'string')
    throw new CairnError(
      'CAIRN_REMOTE',
      `the coordinator at ${options.coordinator} does not trust worker ${options.name}: ${body.untrusted}`,
      {
        hint: `a person at the coordinator clears it with \`cairn worker trust ${options.name}\``,
      },
    );
  if (!response.ok || typeof body?.queue !== 'string' || typeof body.key !== 'string')
    throw new CairnError(
      'CAIRN_REMOTE',
      `the coordinator at ${options.coordinator} refused this worker (${response.status}): ${body?.message ?? 'no queue named'}`,
      { hint: 'use the --token the coordinator printed' },
    );
  return { queue: body.queue, key: body.key };
}

async function runJob(job: Job, context: JobContext): Promise<RemoteResult> {
  const { options } = context;
  const parsed = parseJobData(job.data);
  if (!parsed.ok) throw new UnrecoverableError(parsed.reason);
  const data = parsed.data;
  const token = verifyToken(data.token, context.coordinatorKey, context.clock());
  if (!token.ok) throw new UnrecoverableError(`${token.reason}; the worker did not run the job`);
  const attempt = job.attemptsStarted;
  const jobId = job.id!;
  options.onJob?.(`${jobId} taken (run ${attempt}): ${data.agent.task.slice(0, 60)}`);
  let events = 0;
  const report = (last: string) => {
    const progress: RemoteProgress = { worker: options.name, events, last };
    return job.updateProgress(progress as never).catch(() => undefined);
  };
  await report('taken');
  let snapshotPath: string;
  try {
    snapshotPath = await context.snapshots.get(data.snapshot);
  } catch (error) {
    throw new UnrecoverableError((error as Error).message);
  }
  const dir = join(options.home, 'jobs', `${jobId}.${attempt}`);
  rmSync(dir, { recursive: true, force: true });
  try {
    const { record, database, tokenHash } = await runRemoteAgent({
      data,
      snapshotPath,
      dir,
      home: join(options.home, 'home'),
      secret: options.key.secret,
      worker: options.name,
      sandbox: context.sandbox,
      onEvent: (event) => {
        events++;
        void report(event.type);
      },
    });
    if (record.state !== 'reviewing' || record.journalHead === undefined) {
      const reason = record.reason ?? record.failure?.message ?? `the agent ended ${record.state}`;
      return { state: 'failed', worker: options.name, attempt, code: record.failure?.code ?? 'internal', reason };
    }
    const sha256 = await hashFile(database);
    const head = record.journalHead;
    const signature = signText(options.key.secret, uploadSigningText(jobId, attempt, sha256, head, tokenHash));
    try {
      // the coordinator takes a result until the job's token expires: until then, a result is worth keeping at
      await upload(context, `${jobId}/${attempt}`, token.claims.expiresAt, readFileSync(database), {
        'x-cairn-worker': options.name,
        'x-cairn-sha256': sha256,
        'x-cairn-journal-head': `${head.hash} ${head.length}`,
        'x-cairn-signature': signature,
      });
    } catch (error) {
      if (!(error instanceof DistrustedError)) throw error;
      context.distrusted(error.reason);
      throw new UnrecoverableError(`the coordinator does not trust worker ${options.name}: ${error.reason}`);
    }
    const { calls, wallMs, repairs } = record.spent;
    return { state: 'reviewing', worker: options.name, attempt, summary: record.summary ?? '', calls, wallMs, repairs, runs: record.runs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PUTs a result, trying again (every 5 s at most) while the coordinator is away, until `deadline` (Unix ms); a
 * refusal ends it at once.
 */
async function upload(context: JobContext, path: string, deadline: number, body: Buffer, headers: Record<string, string>): Promise<void> {
  const { options } = context;
  let told = false;
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    let response: Response | undefined;
    let problem: string;
    try {
      response = await fetch(`${options.coordinator}/uploads/${path}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${options.bearer}`, 'content-type': 'application/octet-stream', ...headers },
        body,
      });
      if (response.ok) return;
      const text = await response.text();
      if (response.status === 403) {
        const untrusted = untrustedOf(text);
        if (untrusted !== undefined) throw new DistrustedError(untrusted);
      }
      problem = `(${response.status}) ${text.slice(0, 300)}`;
      if (response.status < 500) throw new Error(`the coordinator refused the upload ${problem}`);
    } catch (error) {
      if (error instanceof DistrustedError || (response !== undefined && response.status < 500)) throw error;
      problem = (error as Error).message;
    }
    if (context.clock() + delay > deadline)
      throw new Error(`the coordinator did not take the upload before the job's token expired: ${problem}`);
    if (!told) {
      told = true;
      options.onJob?.(
        `${path}: the coordinator does not take the result yet (${problem}); trying again until ${new Date(deadline).toISOString()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The coordinator's reason for not trusting this worker, from a refusal's body. */
function untrustedOf(body: string): string | undefined {
  try {
    const untrusted = (JSON.parse(body) as { untrusted?: unknown }).untrusted;
    return typeof untrusted === 'string' ? untrusted : undefined;
  } catch {
    return undefined;
  }
}
