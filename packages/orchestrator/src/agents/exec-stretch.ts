import type { ViewWrites } from '@cairn/checks';
import { captureNow, captureProgram, execOutputFile, execStateDir, removeExecState, runExec } from '@cairn/exec';
import type { CompiledGovernance } from '@cairn/governance';
import { FS_GRANT } from '@cairn/governance';
import type { OneCall } from '@cairn/sandbox';
import type { AgentWorkspace } from '@cairn/workspace';
import type { AttemptsOutcome } from '../programs/attempts.js';
import { fsExclusionsOf } from '../run/build-run-context.js';
import type { AgentRecord } from './agent-store.js';
import { watchSyncRequest } from './exec-sync.js';
import type { ProjectCore } from './project-core.js';

/**
 * Runs a capture program as one stretch segment: `again` when a capture of this stretch already ran (a sync
 * while the command ran), so the program starts a segment of its own in the journal; `call` when the program is
 * one tool call (an MCP client's). Returns how it ended.
 */
export type CaptureRunner = (program: string, again: boolean, call?: OneCall) => Promise<AttemptsOutcome>;

/**
 * An exec agent's stretch: its command runs in its writable view (up to the wall time its budget has left),
 * then what it wrote runs as a capture program. A `cairn run ID --sync` while the command runs captures what it
 * wrote so far at once (a segment of its own), so `cairn diff` shows it; the final capture then takes only what
 * changed since. A command that did not run ends the stretch failed.
 */
export async function runExecStretch(
  core: Pick<ProjectCore, 'layout' | 'clock' | 'emit' | 'store'>,
  record: AgentRecord,
  workspace: AgentWorkspace,
  governance: CompiledGovernance,
  signal: AbortSignal,
  capture: { run: CaptureRunner; callsLeft: () => number },
): Promise<AttemptsOutcome> {
  const exec = record.exec!;
  const started = core.clock();
  const stateDir = execStateDir(core.layout.workspacesDir, record.id, record.runs + 1);
  const request = {
    agentId: record.id,
    exec,
    root: core.layout.root,
    stateDir,
    logFile: execOutputFile(core.layout.workspacesDir, record.id),
    overlay: workspace.overlay,
    blobs: workspace.blobs,
    writeExclude: fsExclusionsOf(governance).writeExclude,
    maxWriteBytes: maxWriteBytesOf(governance),
    callsLeft: capture.callsLeft,
    wallMs: Math.max(1, record.budgets.wallMs - record.spent.wallMs),
    signal,
    terminal: process.env.CAIRN_EXEC_TERMINAL !== '0' && process.stdin.isTTY === true && process.stdout.isTTY === true,
  };
  const note = (message: string) =>
    core.emit({ type: 'agent.log', time: new Date(core.clock()).toISOString(), agentId: record.id, message });
  let writes: ViewWrites | undefined;
  let captures = 0;
  const sync = async (): Promise<string> => {
    if (writes === undefined) return 'the command has not started yet';
    const found = captureNow(request, writes);
    if (found.changes.length === 0) return 'nothing new to take';
    if (found.changes.length + 1 > capture.callsLeft()) return `${found.changes.length} changes: more than the calls budget has left`;
    const summary = `${exec.command.join(' ').slice(0, 200)} (running): ${found.changes.length} changes taken while it ran`;
    const outcome = await capture.run(captureProgram(found.changes, summary), captures++ > 0);
    return outcome.ok ? `took ${found.changes.length} changes` : `the capture failed: ${outcome.failure?.message ?? ''}`;
  };
  const unwatch = watchSyncRequest(core.store, record.id, async () => {
    const said = await sync();
    note(`sync: ${said}`);
    return said;
  });
  let outcome: Awaited<ReturnType<typeof runExec>>;
  try {
    outcome = await runExec({
      ...request,
      onReady: (where) => {
        writes = where;
        note(`running ${exec.command.join(' ')}`);
      },
    });
  } finally {
    await unwatch();
  }
  if (!outcome.ok) return { ok: false, failure: outcome.failure, runs: 0, repairs: 0, calls: 0, wallMs: core.clock() - started };
  const final = await capture.run(outcome.program, captures > 0);
  if (final.ok) removeExecState(stateDir);
  return final;
}

/** The largest single write the agent's file grant allows. */
export function maxWriteBytesOf(governance: CompiledGovernance): number {
  const params = governance.grants.find((grant) => grant.name === FS_GRANT)?.params as { max_write_bytes?: number } | undefined;
  return params?.max_write_bytes ?? Number.MAX_SAFE_INTEGER;
}
