import { mkdirSync, rmSync } from 'node:fs';
import { IgnoreRules, type Overlay } from '@cairn/agentfs';
import { fsPathExcluded } from '@cairn/air';
import type { AgentFailure, ExecSpec } from '@cairn/api';
import { runInView, type ViewRun, type ViewWrites } from '@cairn/checks';
import type { BlobStore } from '@cairn/workspace';
import { writeAgentLayer } from './agent-layer.js';
import { captureProgram, captureWrites } from './exec-capture.js';
import { installHint } from './install-hints.js';

/** One run of an agent CLI in its view. */
export interface ExecRequest {
  agentId: string;
  exec: ExecSpec;
  root: string;
  /** This run's own folder (made afresh): upper layer, work folder, new root. */
  stateDir: string;
  /** Where a headless run's output goes, for `cairn log`. */
  logFile: string;
  overlay: Overlay;
  blobs: BlobStore;
  /** What the agent's governance keeps it from writing: those paths' bytes are not kept (their writes are refused). */
  writeExclude: readonly string[];
  /** The largest single write the governance allows (bytes): a larger file is hashed, not kept. */
  maxWriteBytes: number;
  /** The tool calls the agent's budget has left (asked at the end, after any capture made while it ran). */
  callsLeft: () => number;
  wallMs: number;
  signal: AbortSignal;
  /** The values of the listed variables (this process's environment by default). */
  environment?: NodeJS.ProcessEnv;
  terminal?: boolean;
  /** Called once the command is about to start, with where its writes land. */
  onReady?: (writes: ViewWrites) => void;
}

/** What the run came to: the capture program to run, or why there is none. */
export type ExecOutcome =
  | { ok: true; program: string; summary: string; changes: number; interrupted?: string; view: ViewRun }
  | { ok: false; failure: AgentFailure; view?: ViewRun };

/**
 * Runs the agent's command in its writable sealed view, then reads what it wrote into a capture program
 * (every change one governed tool call). A command that ends badly (killed, crashed, past its wall limit)
 * still leaves what it wrote as a proposal, marked interrupted; more changes than the calls budget allows are
 * refused whole, before any is made.
 */
export async function runExec(request: ExecRequest): Promise<ExecOutcome> {
  rmSync(request.stateDir, { recursive: true, force: true });
  mkdirSync(request.stateDir, { recursive: true });
  const environment = request.environment ?? process.env;
  const env: Record<string, string> = {};
  for (const name of request.exec.env) {
    const value = environment[name];
    if (value !== undefined) env[name] = value;
  }
  const view = await runInView({
    root: request.root,
    state: request.stateDir,
    ...(request.overlay.changes().length === 0 ? {} : { layer: (dir: string) => writeAgentLayer(request.overlay, dir) }),
    command: request.exec.command,
    env,
    homeEntries: request.exec.home,
    ...(request.exec.cwd === undefined ? {} : { cwd: request.exec.cwd }),
    terminal: request.terminal ?? false,
    logFile: request.logFile,
    timeoutMs: request.wallMs,
    signal: request.signal,
    ...(request.onReady === undefined ? {} : { onReady: request.onReady }),
    ...(process.env.CAIRN_EXEC_VIEW === 'copy' ? { view: 'copy' as const } : {}),
  });
  const program = request.exec.command[0] ?? '';
  if (view.status === 'error') {
    const missing = view.error?.startsWith('command not found') === true;
    const hint = missing ? installHint(program) : undefined;
    return {
      ok: false,
      view,
      failure: {
        code: missing ? 'not-installed' : 'exec',
        message: view.error ?? 'the command did not run',
        ...(hint === undefined ? {} : { hint }),
      },
    };
  }
  const capture = captureNow(request, view);
  // the capture's own calls: the changes, and the summary
  const callsLeft = request.callsLeft();
  if (capture.changes.length + 1 > callsLeft)
    return {
      ok: false,
      view,
      failure: {
        code: 'budget',
        message: `the command changed ${capture.changes.length} paths; the calls budget allows ${callsLeft - 1} more, so none was taken`,
        hint: `give the agent a larger budget (--calls ${capture.changes.length + 10}); what it wrote is kept in ${view.writes}`,
      },
    };
  const interrupted = interruptionOf(view);
  const ended = interrupted ?? 'exited';
  const ignored = capture.ignored > 0 ? `; ${capture.ignored} ignored paths left out` : '';
  const where = view.sealed ? '' : `; ${view.why}`;
  const summary = `${interrupted === undefined ? '' : 'interrupted: '}${request.exec.command.join(' ').slice(0, 200)} (${ended}): ${capture.changes.length} changes${ignored}${where}`;
  return {
    ok: true,
    program: captureProgram(
      capture.changes,
      summary,
      capture.protectedMore.map(
        ({ folder, count }) => `${count} more writes under ${folder}/ were left out: refused as the ones below are`,
      ),
    ),
    summary,
    changes: capture.changes.length,
    view,
    ...(interrupted === undefined ? {} : { interrupted }),
  };
}

/** What the command has written so far, compared with the agent's overlay (at its end, or while it runs: `cairn run --sync`). */
export function captureNow(
  request: Pick<ExecRequest, 'root' | 'overlay' | 'blobs' | 'maxWriteBytes' | 'writeExclude'>,
  writes: ViewWrites,
) {
  const rules = IgnoreRules.forTree(request.root);
  return captureWrites(request.overlay.fs, writes, {
    blobs: request.blobs,
    maxFileBytes: request.maxWriteBytes,
    refused: (path) => fsPathExcluded(path, request.writeExclude),
    ignored: (path, isDir) => rules.ignores(path, isDir),
  });
}

/** Why a run ended before its command finished its work, in words; nothing when it exited on its own, with 0. */
function interruptionOf(view: ViewRun): string | undefined {
  if (view.status === 'timed-out') return 'killed at its wall limit, with every process it started';
  if (view.status === 'stopped') return 'stopped, with every process it started';
  if (view.status === 'killed') return `killed by ${view.signal ?? 'a signal'}`;
  // a program that crashed or gave up (an agent CLI whose model failed exits 1): what it wrote is kept all the same
  return view.exitCode === 0 ? undefined : `exited with ${view.exitCode}`;
}

/** Removes a run's folder once its capture is in the overlay (the overlay's work folder is made unreadable by the kernel). */
export function removeExecState(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    // left for `cairn gc`
  }
}
