import { type AgentWorkspace, appendCairnEntry, SCHEMAS } from '@cairn/workspace';
import { type AttemptHost, type AttemptsOutcome, runAttempts } from '../programs/attempts.js';
import type { AgentRecord } from './agent-store.js';
import type { CaptureRunner } from './exec-stretch.js';

/**
 * How an exec agent's stretch runs its capture programs: each once, as the user's program of a `code` agent
 * runs. A capture after the first (the command's end, after a sync while it ran) starts a segment of its own
 * in the journal, so a replay runs each program in turn. The outcome returned last counts every capture's runs
 * and calls.
 */
export function captureRunner(
  workspace: AgentWorkspace,
  record: AgentRecord,
  host: AttemptHost,
  segment: { first_run: number; repairs_left: number; calls_left: number },
): { run: CaptureRunner; callsLeft: () => number } {
  const done = { runs: 0, calls: 0 };
  const callsLeft = () => Math.max(0, segment.calls_left - done.calls);
  const run: CaptureRunner = async (program, again, call) => {
    const firstRun = segment.first_run + done.runs;
    if (again)
      workspace.transaction(() =>
        appendCairnEntry(workspace.journal, SCHEMAS.revisionStarted, {
          first_run: firstRun,
          repairs_left: segment.repairs_left,
          calls_left: callsLeft(),
          feedback: '',
        }),
      );
    const offset = done.calls;
    const outcome: AttemptsOutcome = await runAttempts(
      { origin: 'code', lang: 'js', code: program, repairsLeft: 0, ...(call === undefined ? {} : { call }) },
      { ...host, firstRun, limitsFor: (callsSoFar) => captureLimits(record, offset + callsSoFar) },
    );
    done.runs += outcome.runs;
    done.calls += outcome.calls;
    return { ...outcome, runs: done.runs, calls: done.calls };
  };
  return { run, callsLeft };
}

/** A capture's own limits: Cairn wrote the program, its time is the size of the change (not the agent's wall limit). */
const CAPTURE_WALL_MS = 5 * 60_000;
const CAPTURE_CPU_MS = 60_000;

/** The limits of a capture run: the calls the budget has left, and time enough for the program Cairn wrote. */
function captureLimits(record: AgentRecord, callsSoFar: number): ReturnType<AttemptHost['limitsFor']> {
  const callsLeft = record.budgets.calls - record.spent.calls - callsSoFar;
  if (callsLeft <= 0) return { code: 'budget', message: `the calls budget ran out (${record.budgets.calls} tool calls)` };
  return {
    wallMs: Math.max(record.limits.wallMs, CAPTURE_WALL_MS),
    cpuMs: Math.max(record.limits.cpuMs, CAPTURE_CPU_MS),
    memoryMb: record.limits.memoryMb,
    calls: callsLeft,
    ...sessionOutput(record),
  };
}

/** An MCP client's call returns what its tool gave (a file's text): as much as one call's result may hold. */
const SESSION_OUTPUT_BYTES = 4 * 1024 * 1024 + 1024;

/** The output limit of an agent's runs: larger for an MCP environment's, whose program returns the tool's value. */
export function sessionOutput(record: Pick<AgentRecord, 'session'>): { outputBytes?: number } {
  return record.session === undefined ? {} : { outputBytes: SESSION_OUTPUT_BYTES };
}
