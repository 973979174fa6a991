import { execOutputFile, execStateDir, runExec } from '@cairn/exec';
import type { CompiledGovernance } from '@cairn/governance';
import { FS_GRANT } from '@cairn/governance';
import type { AgentWorkspace } from '@cairn/workspace';
import type { AttemptsOutcome } from '../programs/attempts.js';
import { fsExclusionsOf } from '../run/build-run-context.js';
import type { AgentRecord } from './agent-store.js';
import type { ProjectCore } from './project-core.js';

/** What an exec agent's stretch starts with: the capture program to run, or how it already ended. */
export type ExecStart = { program: string; stateDir: string } | { ended: AttemptsOutcome };

/**
 * Runs an exec agent's command in its writable view (up to the wall time its budget has left) and turns what
 * it wrote into the capture program its stretch runs next; a command that did not run ends the stretch.
 */
export async function startExec(
  core: Pick<ProjectCore, 'layout' | 'clock' | 'emit'>,
  record: AgentRecord,
  workspace: AgentWorkspace,
  governance: CompiledGovernance,
  signal: AbortSignal,
): Promise<ExecStart> {
  const exec = record.exec!;
  const started = core.clock();
  const stateDir = execStateDir(core.layout.workspacesDir, record.id, record.runs + 1);
  const outcome = await runExec({
    agentId: record.id,
    exec,
    root: core.layout.root,
    stateDir,
    logFile: execOutputFile(core.layout.workspacesDir, record.id),
    overlay: workspace.overlay,
    blobs: workspace.blobs,
    writeExclude: fsExclusionsOf(governance).writeExclude,
    maxWriteBytes: maxWriteBytesOf(governance),
    callsLeft: Math.max(0, record.budgets.calls - record.spent.calls),
    wallMs: Math.max(1, record.budgets.wallMs - record.spent.wallMs),
    signal,
    terminal: process.env.CAIRN_EXEC_TERMINAL !== '0' && process.stdin.isTTY === true && process.stdout.isTTY === true,
    onReady: () =>
      core.emit({
        type: 'agent.log',
        time: new Date(core.clock()).toISOString(),
        agentId: record.id,
        message: `running ${exec.command.join(' ')}`,
      }),
  });
  if (outcome.ok) return { program: outcome.program, stateDir };
  return { ended: { ok: false, failure: outcome.failure, runs: 0, repairs: 0, calls: 0, wallMs: core.clock() - started } };
}

/** The largest single write the agent's file grant allows. */
function maxWriteBytesOf(governance: CompiledGovernance): number {
  const params = governance.grants.find((grant) => grant.name === FS_GRANT)?.params as { max_write_bytes?: number } | undefined;
  return params?.max_write_bytes ?? Number.MAX_SAFE_INTEGER;
}
