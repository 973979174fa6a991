import { spawn } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type CairnEvent,
  checkQueueUrl,
  checkWithoutWorkers,
  checkWorkerWait,
  ensurePrivateDir,
  loadQueueSettings,
  projectLayout,
  type QueueSettings,
  readPidFile,
  socketAnswers,
} from '@cairn/daemon/client';
import { daemonHoldsProject } from '@cairn/daemon/lock';
import cliProgress from 'cli-progress';
import { type CommandContext, UsageError } from '../context.js';
import { describeEvent } from '../render/events.js';

const DETACH_TIMEOUT_MS = 120_000;

/** Flags of `cairn up`. */
interface UpFlags {
  detach?: boolean;
  queue?: string;
  serveWorkers?: string;
  workerWaitMs?: string;
  withoutWorkers?: string;
}

/**
 * `cairn up`: the project's daemon — imports the working tree (a progress bar on a terminal), watches it,
 * serves the API on its socket, processes file signals and runs the queue, until Ctrl-C, SIGTERM or
 * `cairn down`. `--detach` starts it in the background with its output in a log file, and returns once its
 * socket answers (printing, for a coordinator, the command its workers run).
 */
export async function upCommand(ctx: CommandContext, given: UpFlags): Promise<number> {
  // the flags over `.cairn/config.json`'s `queue`, `serveWorkers`, `workerWaitMs` and `withoutWorkers`
  const flags: QueueSettings & { detach?: boolean } = { ...loadQueueSettings(projectLayout(ctx.root).configPath) };
  if (given.detach !== undefined) flags.detach = given.detach;
  if (given.queue !== undefined) flags.queue = given.queue;
  if (given.serveWorkers !== undefined) flags.serveWorkers = given.serveWorkers;
  if (given.workerWaitMs !== undefined)
    flags.workerWaitMs = checkFlag(() => checkWorkerWait(Number(given.workerWaitMs), '--worker-wait-ms'));
  if (given.withoutWorkers !== undefined)
    flags.withoutWorkers = checkFlag(() => checkWithoutWorkers(given.withoutWorkers, '--without-workers'));
  if (flags.serveWorkers !== undefined && flags.queue === undefined)
    throw new UsageError('--serve-workers needs --queue', 'workers take jobs from a Redis queue: --queue redis://HOST:PORT');
  const remote =
    flags.queue === undefined
      ? undefined
      : {
          queue: checkQueueUrl(flags.queue),
          ...(flags.serveWorkers === undefined ? {} : { serveWorkers: flags.serveWorkers }),
          ...(flags.workerWaitMs === undefined ? {} : { workerWaitMs: flags.workerWaitMs }),
          ...(flags.withoutWorkers === undefined ? {} : { withoutWorkers: flags.withoutWorkers }),
          ...tokenTtl(),
        };
  if (flags.detach === true) return detach(ctx, flags);
  const { out } = ctx;
  const bar =
    out.tty && !out.json
      ? new cliProgress.SingleBar(
          { format: 'importing |{bar}| {value}/{total} files · {mb} MB · {rate} files/s', hideCursor: true, stream: process.stderr },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  let started = 0;
  let barOn = false;
  const onEvent = (event: CairnEvent) => {
    if (event.type === 'sync.progress') {
      if (bar !== undefined && event.phase === 'import') {
        if (!barOn) {
          bar.start(event.total, 0, { mb: '0.0', rate: '0' });
          barOn = true;
          started = performance.now();
        }
        const seconds = Math.max(0.001, (performance.now() - started) / 1000);
        bar.update(event.done, { mb: (event.bytes / 1e6).toFixed(1), rate: Math.round(event.done / seconds) });
      }
      return;
    }
    out.event(event);
    if (event.type !== 'agent.tool-called' && event.type !== 'agent.log')
      out.line(`${out.paint.dim(event.time.slice(11, 19))} ${describeEvent(event, out.paint)}`);
  };
  // the daemon's code is loaded here only: `--detach` starts it in another process
  const { startDaemon } = await import('@cairn/daemon/run');
  const daemon = await startDaemon(ctx.root, { onEvent, ...(remote === undefined ? {} : { remote }) }).finally(() => {
    if (barOn) bar?.stop();
  });
  const layout = projectLayout(ctx.root);
  out.result(true, {
    pid: process.pid,
    socket: daemon.socketPath,
    sync: daemon.sync,
    ...(daemon.workers === undefined ? {} : { workers: daemon.workers }),
  });
  out.line(`${out.paint.green('cairn is up')} for ${layout.root} (pid ${process.pid})`);
  out.line(
    out.paint.dim(
      `  ${daemon.sync.files} files in stable.db (${daemon.sync.added} added, ${daemon.sync.updated} updated, ${daemon.sync.removed} removed) in ${daemon.sync.ms} ms`,
    ),
  );
  out.line(out.paint.dim(`  socket: ${daemon.socketPath}`));
  out.line(out.paint.dim(`  signals: ${layout.signalsDir}`));
  if (daemon.workers !== undefined) {
    out.line(`  agents go to workers through ${daemon.workers.queue}`);
    if (daemon.workers.url !== undefined) out.line(`  start a worker: ${workerCommand(daemon.workers)}`);
  }
  out.line(out.paint.dim('  Ctrl-C or `cairn down` stops it'));
  tellStarterReady(daemon.workers);
  const stop = () => void daemon.stop();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await daemon.stopped;
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  out.line('cairn is down');
  // a queue whose Redis went away leaves its reconnection timers behind: the daemon is down, and so is this process
  if (remote !== undefined) setTimeout(() => process.exit(0), 1000).unref();
  return 0;
}

/** The command a worker runs to take this coordinator's agents. */
function workerCommand(workers: { queue: string; url?: string; bearer: string }): string {
  return `cairn worker --queue ${workers.queue} --coordinator ${workers.url ?? '?'} --token ${workers.bearer}`;
}

/** A flag's value checked as `.cairn/config.json`'s would be, refused as a usage error. */
function checkFlag<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    const { message, hint } = error as { message: string; hint?: string };
    throw new UsageError(message, hint);
  }
}

/** `CAIRN_TOKEN_TTL_MS`: how long capability tokens last (tests shorten it). */
function tokenTtl(): { tokenTtlMs?: number } {
  const value = Number(process.env.CAIRN_TOKEN_TTL_MS);
  return Number.isSafeInteger(value) && value > 0 ? { tokenTtlMs: value } : {};
}

async function detach(ctx: CommandContext, flags: QueueSettings): Promise<number> {
  const { out } = ctx;
  const layout = projectLayout(ctx.root);
  ensurePrivateDir(layout.home);
  if (daemonHoldsProject(layout)) return alreadyRunning(ctx, layout);
  const log = openSync(layout.logPath, 'a', 0o600);
  // where this start's lines begin: the log is kept across starts
  const startsAt = fstatSync(log).size;
  // the daemon is this same command, as it was started (the bundle, or the built sources through bin/)
  const bin = process.argv[1] ?? fileURLToPath(new URL('../../bin/cairn.mjs', import.meta.url));
  const remote = [
    ...(flags.queue === undefined ? [] : ['--queue', flags.queue]),
    ...(flags.serveWorkers === undefined ? [] : ['--serve-workers', flags.serveWorkers]),
    ...(flags.workerWaitMs === undefined ? [] : ['--worker-wait-ms', String(flags.workerWaitMs)]),
    ...(flags.withoutWorkers === undefined ? [] : ['--without-workers', flags.withoutWorkers]),
  ];
  const child = spawn(process.execPath, [bin, 'up', '--project', layout.root, ...remote], {
    detached: true,
    // the daemon says `ready` on its fd 3 once it serves (see `tellStarterReady`), and the pipe closes if it stops
    stdio: ['ignore', log, log, 'pipe'],
    env: { ...process.env, NO_COLOR: '1', [READY_FD_VARIABLE]: String(READY_FD) },
  });
  closeSync(log);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  child.unref();
  const said = await readyOf(child.stdio[READY_FD] as Readable);
  const ready = said !== undefined;
  if (ready && readPidFile(layout.pidPath)?.pid === child.pid && (await socketAnswers(layout.socketPath))) {
    const workers = said.workers;
    out.result(true, { pid: child.pid, socket: layout.socketPath, log: layout.logPath, ...(workers === undefined ? {} : { workers }) });
    out.line(`${out.paint.green('cairn is up')} in the background (pid ${child.pid})`);
    out.line(out.paint.dim(`  log: ${layout.logPath}`));
    if (workers !== undefined) {
      out.line(`  agents go to workers through ${workers.queue}`);
      if (workers.url !== undefined) out.line(`  start a worker: ${workerCommand(workers)}`);
    }
    out.line(out.paint.dim('  stop it with `cairn down`'));
    return 0;
  }
  // the pipe closed without a word: the daemon is on its way out
  if (!ready && child.exitCode === null && child.signalCode === null) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exit, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
  }
  // a daemon started at the same moment won the project: this one said so in its log and left
  if (exited !== undefined && daemonHoldsProject(layout)) return alreadyRunning(ctx, layout);
  const tail = readTail(layout.logPath, startsAt);
  out.error(
    'CAIRN_DAEMON',
    exited !== undefined ? `the daemon stopped as it started (exit ${exited})` : 'the daemon did not start in time',
    `see its log: ${layout.logPath}${tail === '' ? '' : `\n${tail}`}`,
  );
  if (exited === undefined) child.kill('SIGTERM');
  return 1;
}

/** The environment variable that tells a daemon started by `--detach` which descriptor to say `ready` on. */
const READY_FD_VARIABLE = 'CAIRN_READY_FD';
const READY_FD = 3;

/** What a daemon says when it serves: for a coordinator, where its workers connect. */
interface ReadyWord {
  workers?: { queue: string; url?: string; bearer: string };
}

/**
 * Resolves with what the daemon said with `ready` (a line: `ready` and JSON) on the pipe; undefined when the
 * pipe closes first or it takes too long.
 */
function readyOf(pipe: Readable): Promise<ReadyWord | undefined> {
  return new Promise((resolve) => {
    let said = '';
    const finish = (ready: ReadyWord | undefined) => {
      clearTimeout(timer);
      pipe.removeAllListeners();
      pipe.on('error', () => undefined);
      pipe.destroy();
      resolve(ready);
    };
    const timer = setTimeout(() => finish(undefined), DETACH_TIMEOUT_MS);
    pipe.setEncoding('utf8');
    pipe.on('data', (chunk: string) => {
      said += chunk;
      const line = /^ready ?(.*)\n/.exec(said);
      if (line === null) return;
      try {
        finish(line[1] === '' ? {} : (JSON.parse(line[1]!) as ReadyWord));
      } catch {
        finish({});
      }
    });
    pipe.on('close', () => finish(undefined));
    pipe.on('error', () => finish(undefined));
  });
}

/**
 * Says `ready` (with where workers connect, for a coordinator) to the `cairn up --detach` that started this
 * daemon, on the descriptor it named; no-op otherwise.
 */
function tellStarterReady(workers: ReadyWord['workers']): void {
  const fd = Number(process.env[READY_FD_VARIABLE]);
  delete process.env[READY_FD_VARIABLE];
  if (!Number.isSafeInteger(fd) || fd < 3) return;
  try {
    writeSync(fd, `ready ${JSON.stringify(workers === undefined ? {} : { workers })}\n`);
    closeSync(fd);
  } catch {
    // the starter is gone (it timed out or was killed): nobody is waiting
  }
}

function alreadyRunning(ctx: CommandContext, layout: ReturnType<typeof projectLayout>): number {
  const running = readPidFile(layout.pidPath);
  ctx.out.error(
    'CAIRN_DAEMON',
    `a daemon already serves ${layout.root}${running === undefined ? '' : ` (pid ${running.pid})`}`,
    'stop it with `cairn down`',
  );
  return 1;
}

/** The last lines of the log that this start wrote (from byte `from` on). */
function readTail(path: string, from: number): string {
  try {
    return readFileSync(path).subarray(from).toString('utf8').trimEnd().split('\n').slice(-8).join('\n');
  } catch {
    return '';
  }
}
