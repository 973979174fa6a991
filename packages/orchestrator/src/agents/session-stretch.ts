import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { stateOf } from '@cairn/agentfs';
import { execOutputFile, execStateDir, removeExecState, runExec } from '@cairn/exec';
import type { CompiledGovernance } from '@cairn/governance';
import type { OneCall } from '@cairn/sandbox';
import type { AgentWorkspace } from '@cairn/workspace';
import type { AttemptsOutcome } from '../programs/attempts.js';
import { fsExclusionsOf } from '../run/build-run-context.js';
import type { AgentRecord } from './agent-store.js';
import { type CaptureRunner, maxWriteBytesOf } from './exec-stretch.js';
import type { ProjectCore } from './project-core.js';
import type { CommandAnswer, SessionAnswer, SessionRequest } from './session-mailbox.js';

/** The most of a command's output an answer carries (its end). */
const OUTPUT_TAIL = 32 * 1024;

/**
 * An MCP environment's stretch: it takes its client's requests in order until the client submits or leaves.
 * Each call runs as a one-line program (a segment of its own in the journal), so `cairn replay` reruns every
 * call in turn without the client; a command runs in the agent's writable view and what it wrote runs as a
 * capture program, as an agent CLI's does. It always ends ok: what the calls made is the proposal.
 */
export async function runSessionStretch(
  core: Pick<ProjectCore, 'layout' | 'clock' | 'emit' | 'sessions'>,
  record: AgentRecord,
  workspace: AgentWorkspace,
  governance: CompiledGovernance,
  signal: AbortSignal,
  capture: { run: CaptureRunner; callsLeft: () => number },
): Promise<AttemptsOutcome> {
  const started = core.clock();
  const mailbox = core.sessions.get(record.id);
  const totals = { runs: 0, calls: 0 };
  let summary = 'the client left before submitting';
  if (mailbox === undefined) return { ok: true, runs: 0, repairs: 0, calls: 0, wallMs: 0, summary };
  const onAbort = () => mailbox.interrupt();
  signal.addEventListener('abort', onAbort, { once: true });
  const runSegment = async (program: string, call?: OneCall): Promise<AttemptsOutcome> => {
    const outcome = await capture.run(program, totals.runs > 0, call);
    totals.runs = outcome.runs;
    totals.calls = outcome.calls;
    // what a client is told is done is on disk: a server killed after the answer keeps it
    workspace.head();
    return outcome;
  };
  try {
    for (;;) {
      const request = await mailbox.take();
      if (request === undefined) {
        summary = `stopped: ${String((signal.reason as Error | undefined)?.message ?? 'the agent was stopped')}`;
        break;
      }
      if (request.type === 'end') {
        summary = request.summary;
        break;
      }
      if (request.type === 'call') {
        const outcome = await runSegment(request.program, request.call);
        request.answer(answerOf(outcome));
        if (request.ends && outcome.ok) {
          summary = outcome.summary ?? summary;
          break;
        }
        continue;
      }
      const run = record.runs + 1 + totals.runs;
      request.answer(await runCommand(core, record, workspace, governance, signal, request, run, runSegment, capture.callsLeft));
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    mailbox.drain(`environment ${record.id} has ended: ${summary}`);
  }
  return { ok: true, runs: totals.runs, repairs: 0, calls: totals.calls, wallMs: core.clock() - started, summary };
}

function answerOf(outcome: AttemptsOutcome): SessionAnswer {
  if (outcome.ok) return { ok: true, value: outcome.value ?? null };
  const failure = outcome.failure!;
  // a refused or wrong call reaches a program as a ToolError: the client's model gets its message alone
  const message = failure.message.replace(/^the program failed: ToolError: /, '').replace(/ \(line \d+, column \d+\)$/, '');
  return { ok: false, message, ...(failure.hint === undefined ? {} : { hint: failure.hint }) };
}

async function runCommand(
  core: Pick<ProjectCore, 'layout' | 'clock' | 'emit'>,
  record: AgentRecord,
  workspace: AgentWorkspace,
  governance: CompiledGovernance,
  signal: AbortSignal,
  request: Extract<SessionRequest, { type: 'command' }>,
  run: number,
  runSegment: (program: string, call?: OneCall) => Promise<AttemptsOutcome>,
  callsLeft: () => number,
): Promise<CommandAnswer> {
  const cwd = request.command.cwd;
  if (cwd !== undefined && stateOf(workspace.overlay.fs, `/${cwd}`).kind !== 'dir')
    return { ok: false, message: `run_command: cwd "${cwd}" is not a folder of the environment` };
  const logFile = execOutputFile(core.layout.workspacesDir, record.id);
  const stateDir = execStateDir(core.layout.workspacesDir, record.id, run);
  const from = sizeOf(logFile);
  core.emit({
    type: 'agent.log',
    time: new Date(core.clock()).toISOString(),
    agentId: record.id,
    message: `running ${request.command.command.join(' ')}`,
  });
  const outcome = await runExec({
    agentId: record.id,
    exec: request.command,
    root: core.layout.root,
    stateDir,
    logFile,
    overlay: workspace.overlay,
    blobs: workspace.blobs,
    writeExclude: fsExclusionsOf(governance).writeExclude,
    maxWriteBytes: maxWriteBytesOf(governance),
    callsLeft,
    wallMs: request.wallMs,
    signal,
    terminal: false,
  });
  const output = tailOf(logFile, from);
  if (!outcome.ok)
    return { ok: false, message: outcome.failure.message, ...(outcome.failure.hint === undefined ? {} : { hint: outcome.failure.hint }) };
  const captured = await runSegment(outcome.program);
  if (!captured.ok) return { ok: false, message: `what the command wrote was not taken: ${captured.failure?.message ?? ''}` };
  removeExecState(stateDir);
  const value = (captured.value ?? {}) as { changed?: string[]; refused?: string[] };
  const view = outcome.view;
  return {
    ok: true,
    status: view.status,
    ...(view.exitCode === undefined ? {} : { exitCode: view.exitCode }),
    output,
    changed: value.changed ?? [],
    refused: value.refused ?? [],
    sealed: view.sealed,
  };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** What a file gained after `from`, its last `OUTPUT_TAIL` bytes when longer. */
function tailOf(path: string, from: number): string {
  const size = sizeOf(path);
  const start = Math.max(from, size - OUTPUT_TAIL);
  if (size <= start) return '';
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    const text = buffer.toString('utf8');
    return start > from ? `…(${start - from} bytes before cut)\n${text}` : text;
  } finally {
    closeSync(fd);
  }
}
