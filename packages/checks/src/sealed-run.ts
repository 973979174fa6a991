import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { join } from 'node:path';
import { CappedOutput } from './capped-output.js';
import { checkEnvironment, programFolders } from './check-env.js';
import { checkTempFolder } from './check-temp.js';
import { findSecretFiles } from './hidden-files.js';
import { hostsWithLocalhost } from './loopback-hosts.js';
import { type ProposedFile, proposedPathProblem } from './proposed-file.js';
import { layOutRoot } from './root-skeleton.js';
import { SEAL_SCRIPT } from './sealed-script.js';
import { killMarkedProcesses } from './survivors.js';
import { materializeCopy, writeProposalLayer } from './view-files.js';

/** How a check's view was built: an overlay on the working tree, or a materialized copy. */
export type CheckView = 'overlay' | 'copy';
/** Which views to try: the best the machine allows, a copy (in namespaces where possible), or a copy without namespaces. */
export type ViewChoice = 'auto' | 'copy' | 'unsealed';

/** What one run of a command over a proposal came to. */
export interface SealedRun {
  status: 'passed' | 'failed' | 'timed-out' | 'error';
  exitCode?: number;
  /** Set for `error`: what went wrong, in one line (the command not found, the view not built). */
  error?: string;
  output: Buffer;
  /** Every byte printed, kept or not. */
  outputBytes: number;
  truncated: boolean;
  durationMs: number;
  /** From the start until the command was about to run in its view. */
  readyMs?: number;
  view: CheckView;
  /** Run in user, mount, pid and network namespaces (no network but the loopback, nothing of the user's outside the project). */
  sealed: boolean;
  /** Why this view: the mode and, for a fallback, what the kernel refused. */
  why: string;
}

/** What to run, over what, within which limits. */
export interface SealedRunRequest {
  root: string;
  changes: readonly ProposedFile[];
  command: readonly string[];
  timeoutMs: number;
  outputCapBytes: number;
  /** Default `CAIRN_CHECKS_VIEW` from the environment, else `auto`. */
  view?: ViewChoice;
  /** Size of the check's /tmp and of what it may write into the view (bytes). */
  scratchBytes?: number;
  /** The most processes a sealed check may have at once (its pid namespace's pid_max). */
  maxProcesses?: number;
  /** The `unshare` program (util-linux); a machine without it falls back to an unsealed copy. */
  unshare?: string;
  /** Stops the run (its whole process tree killed); the run is then an `error` saying so. */
  signal?: AbortSignal;
  clock?: () => number;
}

interface Attempt {
  run?: SealedRun;
  /** The view could not be built: why (then the next view is tried). */
  refused?: string;
  /** The namespaces themselves were refused. */
  noNamespaces?: boolean;
  /** Refused for this project only (its path), not by the machine: not remembered. */
  thisProjectOnly?: boolean;
}

const SCRATCH_BYTES = 512 * 1024 * 1024;
const STOPPED = 'stopped: Cairn closed while it ran';
const PID_MAX = 4096;
/** The user namespace first, the others once it maps its root, so the network namespace's loopback belongs to it. */
const unshareArgs = (unshare: string) => ['--user', '--map-root-user', unshare, '--mount', '--net', '--pid', '--fork', '--kill-child'];
const LOOPBACK_DOWN =
  'the loopback is down: sysfs could not be mounted in the namespace and neither `ip` nor `ifconfig` brought it up, so nothing listening on localhost can be reached';

/** What the machine refused before (by `unshare` program), so later checks go straight to what works; a refusal
 * that comes from one project's path is not remembered. */
const refused = new Map<string, { overlay?: string | undefined; namespaces?: string | undefined }>();

/**
 * Runs a command over a proposal in a sealed view of the project: overlay in namespaces where the kernel
 * allows, else a materialized copy in namespaces, else a copy without them. Nothing the command writes
 * reaches the working tree; on timeout the whole process tree is killed; output is capped.
 */
export async function runSealed(request: SealedRunRequest): Promise<SealedRun> {
  const clock = request.clock ?? (() => performance.now());
  const started = clock();
  const problem = request.changes.map((change) => proposedPathProblem(change.path)).find((p) => p !== undefined);
  if (problem !== undefined) return errorRun(`the proposal cannot be laid over the project: ${problem}`, 'overlay', false, 'not built', 0);
  const choice = request.view ?? viewFromEnvironment();
  const unshare = request.unshare ?? 'unshare';
  const machine = refused.get(unshare) ?? {};
  refused.set(unshare, machine);
  const refusals = { ...machine };
  const remember = (attempt: Attempt) => {
    if (attempt.thisProjectOnly !== true) Object.assign(machine, refusals);
  };
  const root = realpathSync(request.root);
  const temp = checkTempFolder();
  try {
    const why: string[] = [];
    if (choice === 'auto' && refusals.overlay === undefined && refusals.namespaces === undefined) {
      const attempt = await runNamespaced({ ...request, root }, temp, 'overlay', clock, started);
      if (attempt.run !== undefined) return attempt.run;
      if (attempt.noNamespaces) refusals.namespaces = attempt.refused;
      else refusals.overlay = attempt.refused;
      remember(attempt);
    }
    if (choice === 'auto') why.push(`the kernel refused the overlay (${refusals.overlay ?? refusals.namespaces})`);
    else why.push(choice === 'copy' ? 'a copy was asked for (CAIRN_CHECKS_VIEW=copy)' : 'an unsealed copy was asked for');
    if (choice !== 'unsealed' && refusals.namespaces === undefined) {
      const attempt = await runNamespaced({ ...request, root }, temp, 'copy', clock, started, why.join('; '));
      if (attempt.run !== undefined) return attempt.run;
      refusals.namespaces = attempt.refused;
      remember(attempt);
    }
    if (choice !== 'unsealed')
      why.push(`namespaces are unavailable (${refusals.namespaces}): no network isolation, the home folder is not hidden`);
    return await runUnsealed({ ...request, root }, temp, clock, started, why.join('; '));
  } finally {
    rmSync(temp, { recursive: true, force: true, maxRetries: 3 });
  }
}

function viewFromEnvironment(): ViewChoice {
  const value = process.env.CAIRN_CHECKS_VIEW;
  return value === 'copy' || value === 'unsealed' ? value : 'auto';
}

async function runNamespaced(
  request: SealedRunRequest,
  temp: string,
  view: CheckView,
  clock: () => number,
  started: number,
  fallbackWhy?: string,
): Promise<Attempt> {
  const base = join(temp, view);
  const scratch = join(base, 'scratch');
  const layer = join(base, 'proposal');
  const copy = join(base, 'copy');
  mkdirSync(scratch, { recursive: true });
  mkdirSync(layer, { recursive: true });
  let removed: string[] = [];
  try {
    if (view === 'overlay') removed = writeProposalLayer(layer, request.changes);
    else materializeCopy(request.root, copy, request.changes);
  } catch (error) {
    return {
      run: errorRun(`the view could not be built: ${(error as Error).message}`, view, true, fallbackWhy ?? view, clock() - started),
    };
  }
  if (view === 'overlay' && /[,:\n]/.test(request.root + layer))
    return { refused: 'the project path holds "," or ":", which an overlay mount cannot name', thisProjectOnly: true };
  const removeList = join(base, 'remove.txt');
  writeFileSync(removeList, [...removed, ...findSecretFiles(request.root)].join('\n'));
  const hosts = hostsWithLocalhost();
  const hostsFile = hosts === undefined ? '' : join(base, 'hosts');
  if (hosts !== undefined) writeFileSync(hostsFile, hosts);
  const home = homedir();
  const env = checkEnvironment('/tmp/home', '/tmp');
  const newRoot = join(base, 'root');
  // a folder holding the project would show its neighbours: only the project's own view is there
  const extra = programFolders(home).filter((folder) => !`${request.root}/`.startsWith(`${folder}/`));
  let binds: string[];
  try {
    binds = layOutRoot(newRoot, request.root, extra);
  } catch (error) {
    return { refused: `the new root could not be laid out: ${(error as Error).message}`, thisProjectOnly: true };
  }
  const unshare = request.unshare ?? 'unshare';
  const child = spawn(
    unshare,
    [...unshareArgs(unshare), 'sh', '-c', SEAL_SCRIPT, 'cairn-check', 'env', '-i', ...pairs(env), ...request.command],
    {
      detached: true,
      // fd 4: held open by this process alone, so the check dies with it (see SEAL_SCRIPT)
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: {
        PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
        CAIRN_SEAL_ROOT: request.root,
        CAIRN_SEAL_SCRATCH: scratch,
        CAIRN_SEAL_PROPOSAL: layer,
        CAIRN_SEAL_VIEW: view,
        CAIRN_SEAL_COPY: copy,
        CAIRN_SEAL_REMOVE: removeList,
        CAIRN_SEAL_RO: binds.join('\n'),
        CAIRN_SEAL_NEWROOT: newRoot,
        CAIRN_SEAL_SIZE: String(request.scratchBytes ?? SCRATCH_BYTES),
        CAIRN_SEAL_PIDS: String(request.maxProcesses ?? PID_MAX),
        CAIRN_SEAL_HOSTS: hostsFile,
        CAIRN_SEAL_PATH: env.PATH ?? '',
        CAIRN_SEAL_PROGRAM: request.command[0] ?? '',
      },
    },
  );
  const output = new CappedOutput(request.outputCapBytes);
  let setup = '';
  let readyAt: number | undefined;
  let missing = false;
  let loopbackDown = false;
  let unshareErrors = '';
  child.stdout?.on('data', (chunk: Buffer) => output.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => {
    unshareErrors += chunk.toString('utf8');
  });
  (child.stdio[3] as NodeJS.ReadableStream | null)?.on('data', (chunk: Buffer) => {
    setup += chunk.toString('utf8');
    if (readyAt === undefined && /(^|\n)ready\n/.test(setup)) readyAt = clock();
    if (/(^|\n)missing\n/.test(setup)) missing = true;
    if (/(^|\n)loopback-down\n/.test(setup)) loopbackDown = true;
  });
  const ended = await awaitEnd(child, request.timeoutMs, undefined, request.signal);
  const durationMs = clock() - started;
  const views = fallbackWhy ?? 'overlay of the proposal on the working tree, in user, mount, pid and network namespaces';
  const why = loopbackDown ? `${views}; ${LOOPBACK_DOWN}` : views;
  if (ended.spawnError !== undefined) return { refused: `unshare could not start: ${ended.spawnError.message}`, noNamespaces: true };
  if (ended.stopped) return { run: errorRun(STOPPED, view, true, why, durationMs) };
  if (missing) return { run: errorRun(`command not found: ${request.command[0]}`, view, true, why, durationMs) };
  if (readyAt === undefined) {
    if (ended.timedOut)
      return { run: { ...errorRun('the view was not ready before the timeout', view, true, why, durationMs), status: 'timed-out' } };
    const message =
      lastLine(unshareErrors) ?? lastLine(setup.replace(/(^|\n)(ready|loopback-down)\n/g, '$1')) ?? `setup ended with ${ended.code}`;
    return { refused: message, noNamespaces: unshareErrors.includes('unshare') };
  }
  return { run: finished(ended, output, view, true, why, durationMs, readyAt - started) };
}

async function runUnsealed(request: SealedRunRequest, temp: string, clock: () => number, started: number, why: string): Promise<SealedRun> {
  const copy = join(temp, 'unsealed', 'copy');
  const home = join(temp, 'unsealed', 'home');
  const tmp = join(temp, 'unsealed', 'tmp');
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  try {
    materializeCopy(request.root, copy, request.changes);
  } catch (error) {
    return errorRun(`the view could not be built: ${(error as Error).message}`, 'copy', false, why, clock() - started);
  }
  const marker = `CAIRN_CHECK_RUN=${randomUUID()}`;
  const [name, value] = marker.split('=') as [string, string];
  const readyMs = clock() - started;
  const child = spawn(request.command[0] ?? '', request.command.slice(1), {
    cwd: copy,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...checkEnvironment(home, tmp), [name]: value },
  });
  const output = new CappedOutput(request.outputCapBytes);
  child.stdout?.on('data', (chunk: Buffer) => output.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.add(chunk));
  const ended = await awaitEnd(child, request.timeoutMs, { env: marker, under: join(temp, 'unsealed') }, request.signal);
  const durationMs = clock() - started;
  if (ended.stopped) return errorRun(STOPPED, 'copy', false, why, durationMs);
  if (ended.spawnError !== undefined) {
    const code = (ended.spawnError as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT' ? `command not found: ${request.command[0]}` : `${request.command[0]} could not start: ${ended.spawnError.message}`;
    return errorRun(message, 'copy', false, why, durationMs);
  }
  return finished(ended, output, 'copy', false, why, durationMs, readyMs);
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stopped?: boolean;
  spawnError?: Error;
}

/**
 * Waits for the command and for its output to end. On timeout the process group is killed (in namespaces,
 * killing unshare kills the namespace's PID 1, and with it every process in it); without namespaces the
 * processes carrying `marker.env` in their environment, or working under `marker.under`, are hunted down too,
 * when the command ends and on timeout.
 */
function awaitEnd(child: ChildProcess, timeoutMs: number, marker?: { env: string; under: string }, stop?: AbortSignal): Promise<Ended> {
  return new Promise((resolve) => {
    let timedOut = false;
    let stopped = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let grace: NodeJS.Timeout | undefined;
    const killAll = (): void => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is gone
        }
      }
      if (marker !== undefined) killMarkedProcesses(marker.env, marker.under);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killAll();
    }, timeoutMs);
    const onStop = (): void => {
      stopped = true;
      killAll();
    };
    if (stop?.aborted === true) onStop();
    else stop?.addEventListener('abort', onStop, { once: true });
    child.once('error', (error) => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
      resolve({ code: null, signal: null, timedOut: false, spawnError: error });
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      killAll();
      // Output still held open by a process outside the group and without the marker: stop waiting for it.
      grace = setTimeout(() => {
        for (const stream of child.stdio) stream?.destroy();
      }, 2_000);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
      if (grace !== undefined) clearTimeout(grace);
      resolve({ code: exit?.code ?? code, signal: exit?.signal ?? signal, timedOut, stopped });
    });
  });
}

function finished(
  ended: Ended,
  output: CappedOutput,
  view: CheckView,
  sealed: boolean,
  why: string,
  durationMs: number,
  readyMs: number,
): SealedRun {
  const run = { output: output.bytes(), outputBytes: output.total, truncated: output.truncated, durationMs, readyMs, view, sealed, why };
  if (ended.timedOut) return { ...run, status: 'timed-out' };
  const exitCode = ended.code ?? 128 + signalNumber(ended.signal);
  return exitCode === 0 ? { ...run, status: 'passed', exitCode } : { ...run, status: 'failed', exitCode };
}

function errorRun(error: string, view: CheckView, sealed: boolean, why: string, durationMs: number): SealedRun {
  return { status: 'error', error, output: Buffer.alloc(0), outputBytes: 0, truncated: false, durationMs, view, sealed, why };
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : (constants.signals[signal] ?? 0);
}

function pairs(env: Record<string, string>): string[] {
  return Object.entries(env).map(([key, value]) => `${key}=${value}`);
}

function lastLine(text: string): string | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.at(-1);
}
