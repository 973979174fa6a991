import type { CheckResultInfo } from '@cairn/api';
import type { CheckResultStore, CheckSpec, ProposedFile, runSealed, SealedRun } from '@cairn/checks';
import type { ProjectCore } from './project-core.js';

/** What one check run works with: the runner, the results, the project's root, clock and events. */
export interface CheckExecution {
  core: Pick<ProjectCore, 'clock' | 'emit' | 'layout'>;
  results: CheckResultStore;
  runner: typeof runSealed;
  /** Aborts with the process: the run is killed and its result left pending. */
  signal: AbortSignal;
}

/** A run that could not start, as a result. */
function notStarted(error: unknown): SealedRun {
  return {
    status: 'error',
    error: (error as Error).message,
    output: Buffer.alloc(0),
    outputBytes: 0,
    truncated: false,
    durationMs: 0,
    view: 'overlay',
    sealed: false,
    why: 'the check could not be started',
  };
}

/**
 * Runs check `spec` on the proposal `changes` (run `ref`) if its result still waits for that run, and keeps the
 * result unless the run was superseded meanwhile (a revision, a move of the project, a newer run) or stopped
 * with the process (left pending, to run again when the project next opens to run agents).
 */
export async function executeCheck(
  { core, results, runner, signal }: CheckExecution,
  agentId: string,
  spec: CheckSpec,
  changes: readonly ProposedFile[],
  ref: string,
): Promise<void> {
  const now = () => new Date(core.clock()).toISOString();
  const due = results.get(agentId, spec.name);
  if (due === undefined || due.runRef !== ref || due.info.status !== 'pending') return;
  core.emit({ type: 'check.started', time: now(), agentId, name: spec.name });
  let run: SealedRun;
  try {
    run = await runner({
      root: core.layout.root,
      changes,
      command: spec.command,
      timeoutMs: spec.timeoutMs,
      outputCapBytes: spec.outputCapBytes,
      signal,
    });
  } catch (error) {
    run = notStarted(error);
  }
  if (signal.aborted) return;
  const current = results.get(agentId, spec.name);
  if (current === undefined || current.runRef !== ref || current.info.status !== 'pending') {
    // marked stale by another process: whoever here waits for this run learns that it ended so
    if (current?.runRef === ref) core.emit({ type: 'check.finished', time: now(), agentId, result: current.info });
    return;
  }
  const info: CheckResultInfo = {
    name: spec.name,
    status: run.status,
    auto: spec.auto,
    durationMs: Math.round(run.durationMs),
    view: run.view,
    sealed: run.sealed,
    why: run.why,
    outputBytes: run.outputBytes,
    truncated: run.truncated,
    updatedAt: now(),
  };
  if (run.exitCode !== undefined) info.exitCode = run.exitCode;
  if (run.error !== undefined) info.error = run.error;
  results.put(agentId, { info, runRef: ref, output: run.output }, core.clock());
  core.emit({ type: 'check.finished', time: now(), agentId, result: info });
}
