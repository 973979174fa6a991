import { hostname } from 'node:os';
import { join } from 'node:path';
import { checkQueueUrl, loadSigningKey, STOP_GRACE_MS, startWorker, workerRoster } from '@cairn/remote';
import { cairnHomeDir } from '@cairn/workspace/layout';
import { type CommandContext, UsageError } from '../context.js';

interface WorkerFlags {
  queue?: string;
  coordinator?: string;
  token?: string;
  concurrency?: string;
  name?: string;
  grace?: string;
}

/** This machine's worker folder: its key, its snapshot cache, its jobs. */
function workerHome(): string {
  return join(cairnHomeDir(), 'worker');
}

function nameOf(flags: { name?: string }): string {
  const name =
    flags.name ??
    hostname()
      .replace(/[^\w.-]/g, '-')
      .slice(0, 64);
  if (!/^[\w.-]{1,64}$/.test(name))
    throw new UsageError(`a worker name is 1 to 64 letters, digits, dots, dashes or underscores (got ${JSON.stringify(name)})`);
  return name;
}

/**
 * `cairn worker`: takes agents from the coordinator's queue and runs them here, until Ctrl-C or SIGTERM: with no
 * agent running it stops at once (whatever state Redis is in); otherwise the running agents finish, for
 * `--grace` seconds at most, and a second signal (or the grace running out) leaves them: their jobs go back on
 * the queue for another worker.
 */
export async function workerCommand(ctx: CommandContext, flags: WorkerFlags): Promise<number> {
  const { out } = ctx;
  if (flags.queue === undefined || flags.coordinator === undefined || flags.token === undefined)
    throw new UsageError(
      'cairn worker needs --queue, --coordinator and --token',
      'all three are printed by `cairn up --queue … --serve-workers …` on the coordinator',
    );
  const queue = checkQueueUrl(flags.queue);
  if (!/^https?:\/\/[^/]+$/.test(flags.coordinator.replace(/\/$/, '')))
    throw new UsageError(`--coordinator must be http://HOST:PORT (got ${JSON.stringify(flags.coordinator)})`);
  const concurrency = flags.concurrency === undefined ? 3 : Number(flags.concurrency);
  if (!Number.isSafeInteger(concurrency) || concurrency < 1)
    throw new UsageError(`--concurrency must be a positive integer (got ${JSON.stringify(flags.concurrency)})`);
  const graceSeconds = flags.grace === undefined ? STOP_GRACE_MS / 1000 : Number(flags.grace);
  if (!Number.isFinite(graceSeconds) || graceSeconds < 0 || graceSeconds > 86_400)
    throw new UsageError(`--grace must be a number of seconds from 0 to 86400 (got ${JSON.stringify(flags.grace)})`);
  const name = nameOf(flags);
  const home = workerHome();
  const key = loadSigningKey(join(home, 'worker.key'));
  const lockMs = process.env.CAIRN_WORKER_LOCK_MS === undefined ? undefined : Number(process.env.CAIRN_WORKER_LOCK_MS);
  const worker = await startWorker({
    queue,
    coordinator: flags.coordinator.replace(/\/$/, ''),
    bearer: flags.token,
    home,
    name,
    key,
    concurrency,
    graceMs: Math.round(graceSeconds * 1000),
    ...(lockMs === undefined || !(lockMs > 0) ? {} : { lockMs }),
    onJob: (line) => out.line(`${out.paint.dim(new Date().toISOString().slice(11, 19))} ${line}`),
  });
  out.result(true, { worker: name, pid: process.pid, concurrency, key: key.publicText });
  out.line(`${out.paint.green('worker is up')}: ${name} (pid ${process.pid}), ${concurrency} at once, queue ${queue}`);
  const distrusted = await new Promise<string | undefined>((resolve) => {
    process.once('SIGINT', () => resolve(undefined));
    process.once('SIGTERM', () => resolve(undefined));
    void worker.distrusted.then(resolve);
  });
  if (distrusted !== undefined)
    out.error(
      'CAIRN_REMOTE',
      `the coordinator no longer trusts worker ${name} (${distrusted}): it takes no more jobs, and the agent it refused goes back on the queue`,
      `a person at the coordinator clears it with \`cairn worker trust ${name}\``,
    );
  const running = worker.running();
  out.line(
    running === 0
      ? 'stopping: no agent runs here'
      : `finishing the ${running} running agent${running === 1 ? '' : 's'} (${graceSeconds} s at most; stop again to leave them now: their jobs go back on the queue for another worker)`,
  );
  // a second signal leaves the running agents: each job is handed back to the queue (or, Redis away, its lock
  // expires and the stalled check puts it back)
  const leave = () => {
    out.line('leaving the running agents: their jobs go back on the queue for another worker');
    void worker.leave().finally(() => process.exit(130));
    setTimeout(() => process.exit(130), 5000).unref();
  };
  process.once('SIGINT', leave);
  process.once('SIGTERM', leave);
  const { left } = await worker.stop();
  if (left > 0)
    out.line(
      `left ${left} running agent${left === 1 ? '' : 's'} after ${graceSeconds} s: their jobs go back on the queue for another worker`,
    );
  out.line('worker is down');
  const code = distrusted === undefined ? 0 : 1;
  // a queue whose Redis is away leaves its reconnection timers behind: the worker is down, and so is this process
  setTimeout(() => process.exit(code), 500).unref();
  return code;
}

/** `cairn worker enroll`: prints this worker's public key (made on first use) as the coordinator lists it. */
export async function workerEnrollCommand(ctx: CommandContext, flags: { name?: string }): Promise<number> {
  const name = nameOf(flags);
  const key = loadSigningKey(join(workerHome(), 'worker.key'));
  ctx.out.result(true, { name, key: key.publicText });
  ctx.out.line(`${name} ${key.publicText}`);
  ctx.out.line(ctx.out.paint.dim(`  on the coordinator, add to .cairn/config.json: "workers": { "${name}": "${key.publicText}" }`));
  return 0;
}

/** `cairn worker trust NAME`: clears the untrusted mark a refused result left. */
export async function workerTrustCommand(ctx: CommandContext, name: string): Promise<number> {
  const roster = workerRoster(ctx.root);
  const was = roster.untrusted(name);
  const cleared = roster.trust(name);
  ctx.out.result(true, { worker: name, cleared, ...(was === undefined ? {} : { was }) });
  ctx.out.line(cleared ? `worker ${name} is trusted again (it was untrusted: ${was ?? ''})` : `worker ${name} was not marked untrusted`);
  return 0;
}
