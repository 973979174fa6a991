import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { join } from 'node:path';
import { programPath } from './check-env.js';
import { findSecretFiles } from './hidden-files.js';
import { layOutRoot } from './root-skeleton.js';
import { killMarkedProcesses } from './survivors.js';
import { materializeCopy } from './view-files.js';
import { viewFolders } from './view-folders.js';
import { VIEW_SCRIPT } from './view-script.js';

/** Where an agent's view keeps what it writes: an upper layer over the working tree, or a whole copy of it. */
export type ViewKind = 'overlay' | 'copy';

/** What to run in an agent's writable view, and how. */
export interface ViewRunRequest {
  /** The project's working tree (the view's lower layer). */
  root: string;
  /** A folder of this run's own (made empty by the caller): the upper layer, the overlay's work folder, the copy. */
  state: string;
  /**
   * Writes the agent's proposal so far into a folder (empty, or a copy of the project) and returns the paths it
   * deletes: laid between the working tree and the upper layer. Absent for an agent with no proposal yet.
   */
  layer?: (dir: string) => string[];
  command: readonly string[];
  /** The environment the command gets, besides PATH, HOME, TMPDIR, TERM and the locale. */
  env: Readonly<Record<string, string>>;
  /** Entries of the home folder (`.claude`, `.gitconfig`) bound in read-only. */
  homeEntries: readonly string[];
  /** Where in the project the command starts (project-relative; the root when absent). */
  cwd?: string;
  /** Attach the command to this process's terminal; otherwise it runs headless, its output into `logFile`. */
  terminal: boolean;
  logFile?: string;
  timeoutMs: number;
  /** Size of /tmp (bytes). */
  scratchBytes?: number;
  /** `auto` (an overlay in namespaces where the kernel allows), or `copy` (a copy without namespaces). */
  view?: 'auto' | 'copy';
  signal?: AbortSignal;
  unshare?: string;
  /** Called once the command is about to start in its view, with where its writes land (to read them while it runs). */
  onReady?: (writes: ViewWrites) => void;
}

/** Where a view's writes land: what a capture reads, at the end or while the command runs. */
export interface ViewWrites {
  view: ViewKind;
  /** The upper layer (overlay) or the copy (copy). */
  writes: string;
  /** The paths the view hid by removing them (the capture skips their whiteouts). */
  hidden: string[];
  /** For an overlay, once the command ended: each folder of the upper layer the merged view shows, with its names there. */
  merged?: Map<string, Set<string>>;
}

/** How a command in a view ended, and where its writes are. */
export interface ViewRun extends ViewWrites {
  status: 'exited' | 'killed' | 'timed-out' | 'stopped' | 'error';
  exitCode?: number;
  signal?: string;
  /** Set for `error`: why the command did not run (not found, the view not built). */
  error?: string;
  sealed: boolean;
  /** Why this view: for a copy, what the kernel refused. */
  why: string;
  durationMs: number;
  readyMs?: number;
}

const SCRATCH_BYTES = 1024 * 1024 * 1024;
const unshareArgs = (unshare: string) => ['--user', '--map-root-user', unshare, '--mount', '--pid', '--fork', '--kill-child'];
/** Refusals of the machine, by `unshare` program: later runs go straight to the copy. */
const refused = new Map<string, string>();

/**
 * Runs a command in an agent's writable view of the project: an overlay of an upper layer on disk over the
 * agent's proposal and the working tree, in user, mount and pid namespaces with the network kept, where the
 * kernel allows; else a copy of the project, without namespaces (and the run says so). Nothing the command
 * writes reaches the working tree. On timeout, stop or the end of Cairn, the whole process tree is killed.
 */
export async function runInView(request: ViewRunRequest): Promise<ViewRun> {
  const root = realpathSync(request.root);
  const started = performance.now();
  const unshare = request.unshare ?? 'unshare';
  let why = '';
  if (request.view !== 'copy') {
    const machine = refused.get(unshare);
    if (machine === undefined) {
      const attempt = await runOverlay({ ...request, root }, started);
      if ('run' in attempt) return attempt.run;
      if (!attempt.thisProjectOnly) refused.set(unshare, attempt.refused);
      why = `namespaces or the overlay were refused (${attempt.refused}): a copy of the project, not sealed`;
    } else why = `namespaces or the overlay were refused (${machine}): a copy of the project, not sealed`;
  } else why = 'a copy was asked for: not sealed';
  return runCopy({ ...request, root }, recentSecretFiles(root), started, why);
}

/** The `.env*` files of a project, walked for at most one spawn a moment: agents spawned together share a walk. */
const secretWalks = new Map<string, { at: number; found: string[] }>();
const SECRET_WALK_MS = 250;

function recentSecretFiles(root: string): string[] {
  const now = performance.now();
  const recent = secretWalks.get(root);
  if (recent !== undefined && now - recent.at < SECRET_WALK_MS) return [...recent.found];
  const found = findSecretFiles(root);
  secretWalks.set(root, { at: performance.now(), found });
  return [...found];
}

type Attempt = { run: ViewRun } | { refused: string; thisProjectOnly: boolean };

async function runOverlay(request: ViewRunRequest, started: number): Promise<Attempt> {
  const upper = join(request.state, 'upper');
  const work = join(request.state, 'work');
  const layer = join(request.state, 'proposal');
  const newRoot = join(request.state, 'root');
  for (const folder of [upper, work, layer]) mkdirSync(folder, { recursive: true });
  if (/[,:\n]/.test(request.root + request.state))
    return { refused: 'the project or Cairn home path holds "," or ":", which an overlay mount cannot name', thisProjectOnly: true };
  const removed = request.layer?.(layer) ?? [];
  const home = homedir();
  // parents first, so a folder inside one already bound is not bound again (each bind is a process in the setup)
  const extra = [...new Set(viewFolders(request.command[0] ?? ''))]
    .sort((a, b) => a.length - b.length)
    .filter((folder) => !`${request.root}/`.startsWith(`${folder}/`));
  let binds: string[];
  try {
    binds = layOutRoot(newRoot, request.root, extra);
    mkdirSync(join(newRoot, '.cairn-upper'));
    mkdirSync(join(newRoot, 'dev', 'pts'));
    writeFileSync(join(newRoot, 'dev', 'ptmx'), '');
  } catch (error) {
    return { refused: `the new root could not be laid out: ${(error as Error).message}`, thisProjectOnly: true };
  }
  const env = viewEnvironment(request, '/tmp/home', '/tmp');
  const unshare = request.unshare ?? 'unshare';
  const log = request.terminal ? undefined : openSync(request.logFile ?? '/dev/null', 'a');
  const stdio: StdioOptions = request.terminal
    ? ['inherit', 'inherit', 'inherit', 'pipe', 'pipe', 'pipe', 'pipe']
    : ['ignore', log ?? 'ignore', log ?? 'ignore', 'pipe', 'pipe', 'pipe', 'pipe'];
  const child = spawn(
    unshare,
    [...unshareArgs(unshare), 'sh', '-c', VIEW_SCRIPT, 'cairn-view', 'env', '-i', ...pairs(env), ...request.command],
    {
      // with a terminal the command stays in the terminal's foreground group, so it can read it and get Ctrl-C
      detached: !request.terminal,
      stdio,
      env: {
        PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
        CAIRN_VIEW_ROOT: request.root,
        CAIRN_VIEW_NEWROOT: newRoot,
        CAIRN_VIEW_UPPER: upper,
        CAIRN_VIEW_WORK: work,
        CAIRN_VIEW_LAYER: request.layer === undefined ? '' : layer,
        CAIRN_VIEW_MODE: 'overlay',
        CAIRN_VIEW_COPY: '',
        CAIRN_VIEW_RO: binds.join('\n'),
        CAIRN_VIEW_HOME: home,
        CAIRN_VIEW_HOME_BINDS: request.homeEntries.join('\n'),
        CAIRN_VIEW_AS_ROOT: process.getuid?.() === 0 ? '1' : '0',
        CAIRN_VIEW_SIZE: String(request.scratchBytes ?? SCRATCH_BYTES),
        CAIRN_VIEW_CWD: join(request.root, request.cwd ?? ''),
        CAIRN_VIEW_PATH: env.PATH ?? '',
        CAIRN_VIEW_PROGRAM: request.command[0] ?? '',
      },
    },
  );
  if (log !== undefined) closeSync(log);
  // the .env* files are looked for while the view's mounts are made; the script reads the list just before its pivot
  const hidden = recentSecretFiles(request.root);
  const removals = (child.stdio as unknown as (NodeJS.WritableStream | null)[])[6];
  removals?.on('error', () => undefined);
  removals?.end([...removed, ...hidden].join('\n'));
  let setup = '';
  let readyAt: number | undefined;
  let missing = false;
  let unshareErrors = '';
  const listing: Buffer[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    unshareErrors += chunk.toString('utf8');
  });
  (child.stdio[3] as NodeJS.ReadableStream | null)?.on('data', (chunk: Buffer) => {
    setup += chunk.toString('utf8');
    if (readyAt === undefined && /(^|\n)ready\n/.test(setup)) {
      readyAt = performance.now();
      request.onReady?.({ view: 'overlay', writes: upper, hidden });
    }
    if (/(^|\n)missing\n/.test(setup)) missing = true;
  });
  (child.stdio as unknown as (NodeJS.ReadableStream | null)[])[5]?.on('data', (chunk: Buffer) => listing.push(chunk));
  const ended = await awaitEnd(child, request.timeoutMs, request.signal);
  const durationMs = performance.now() - started;
  const base = {
    view: 'overlay' as const,
    sealed: true,
    why: 'an overlay on the working tree, in user, mount and pid namespaces',
    writes: upper,
    hidden,
  };
  if (ended.spawnError !== undefined) return { refused: `unshare could not start: ${ended.spawnError.message}`, thisProjectOnly: false };
  if (readyAt === undefined && !ended.stopped && !ended.timedOut) {
    if (missing) return { run: { ...base, status: 'error', error: `command not found: ${request.command[0]}`, durationMs } };
    const message = lastLine(unshareErrors) ?? lastLine(setup) ?? `setup ended with ${ended.code}`;
    rmSync(upper, { recursive: true, force: true });
    mkdirSync(upper);
    return { refused: message, thisProjectOnly: false };
  }
  return {
    run: {
      ...base,
      ...outcome(ended),
      merged: parseListing(Buffer.concat(listing)),
      durationMs,
      ...(readyAt === undefined ? {} : { readyMs: readyAt - started }),
    },
  };
}

async function runCopy(request: ViewRunRequest, hidden: string[], started: number, why: string): Promise<ViewRun> {
  const copy = join(request.state, 'copy');
  const home = join(request.state, 'home');
  const tmp = join(request.state, 'tmp');
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  const base = { view: 'copy' as const, sealed: false, why, writes: copy, hidden };
  try {
    materializeCopy(request.root, copy, []);
    request.layer?.(copy);
  } catch (error) {
    return {
      ...base,
      status: 'error',
      error: `the copy could not be made: ${(error as Error).message}`,
      durationMs: performance.now() - started,
    };
  }
  const marker = `CAIRN_VIEW_RUN=${randomUUID()}`;
  const [name, value] = marker.split('=') as [string, string];
  const log = request.terminal ? undefined : openSync(request.logFile ?? '/dev/null', 'a');
  const readyMs = performance.now() - started;
  request.onReady?.({ view: 'copy', writes: copy, hidden });
  const child = spawn(request.command[0] ?? '', request.command.slice(1), {
    cwd: join(copy, request.cwd ?? ''),
    detached: false,
    stdio: request.terminal ? 'inherit' : ['ignore', log ?? 'ignore', log ?? 'ignore'],
    env: { ...viewEnvironment(request, home, tmp), [name]: value },
  });
  if (log !== undefined) closeSync(log);
  const ended = await awaitEnd(child, request.timeoutMs, request.signal, () => killMarkedProcesses(marker, copy));
  const durationMs = performance.now() - started;
  if (ended.spawnError !== undefined) {
    const code = (ended.spawnError as NodeJS.ErrnoException).code;
    const error =
      code === 'ENOENT' ? `command not found: ${request.command[0]}` : `${request.command[0]} could not start: ${ended.spawnError.message}`;
    return { ...base, status: 'error', error, durationMs };
  }
  return { ...base, ...outcome(ended), durationMs, readyMs };
}

/** The command's environment: the path to programs, an empty home, the terminal and locale, and what the user listed. */
function viewEnvironment(request: ViewRunRequest, home: string, tmp: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: programPath(),
    HOME: home,
    TMPDIR: tmp,
    TERM: request.terminal ? (process.env.TERM ?? 'xterm-256color') : 'dumb',
    // the view is a sandbox: agent CLIs that refuse to skip their own permission prompts as root accept it here
    IS_SANDBOX: '1',
  };
  for (const key of ['LANG', 'LC_ALL', 'TZ', 'COLORTERM']) {
    const value = process.env[key];
    if (value !== undefined && value !== '') env[key] = value;
  }
  return { ...env, ...request.env };
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stopped: boolean;
  spawnError?: Error;
}

function awaitEnd(child: ChildProcess, timeoutMs: number, stop: AbortSignal | undefined, hunt?: () => void): Promise<Ended> {
  return new Promise((resolve) => {
    let timedOut = false;
    let stopped = false;
    const killAll = (): void => {
      if (child.pid !== undefined) {
        for (const target of [-child.pid, child.pid]) {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
      hunt?.();
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
      resolve({ code: null, signal: null, timedOut: false, stopped: false, spawnError: error });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
      hunt?.();
      resolve({ code, signal, timedOut, stopped });
    });
  });
}

function outcome(ended: Ended): Pick<ViewRun, 'status' | 'exitCode' | 'signal'> {
  if (ended.timedOut) return { status: 'timed-out' };
  if (ended.stopped) return { status: 'stopped' };
  if (ended.signal !== null) return { status: 'killed', signal: ended.signal, exitCode: 128 + (constants.signals[ended.signal] ?? 0) };
  const code = ended.code ?? 0;
  // in namespaces a command killed by a signal shows as the shell's 128 + its number
  if (code > 128 && code < 160) {
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    if (name !== undefined && ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGSEGV', 'SIGABRT', 'SIGHUP', 'SIGBUS'].includes(name))
      return { status: 'killed', signal: name, exitCode: code };
  }
  return { status: 'exited', exitCode: code };
}

/** The merged view's listing (`/folder\0name\0name\0…`), by folder. */
function parseListing(bytes: Buffer): Map<string, Set<string>> {
  const merged = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const part of bytes.toString('utf8').split('\0')) {
    if (part === '') continue;
    if (part.startsWith('/')) {
      current = new Set();
      merged.set(part.slice(1), current);
    } else current?.add(part);
  }
  return merged;
}

function pairs(env: Record<string, string>): string[] {
  return Object.entries(env).map(([key, value]) => `${key}=${value}`);
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== 'ready')
    .at(-1);
}
