import type { AgentFailure, ChangeInfo } from '@cairn/api';
import { runSealed } from '@cairn/checks';
import { type CompiledGovernance, compileGovernanceJson, createAgentKernel, startingGovernance } from '@cairn/governance';
import { AgentWorkspace, appendCairnEntry, changeInfoOf, governanceRefOf, runStartsOf, SCHEMAS } from '@cairn/workspace';
import { type AttemptHost, type AttemptsOutcome, runAttempts } from '../programs/attempts.js';
import type { RunLimits } from '../programs/program-run.js';
import { buildRunContext, type RunSource } from '../run/build-run-context.js';
import { modelCaller } from '../run/model-adapter.js';
import type { ReviewContext, RunContext } from '../run/run-context.js';
import type { AgentRecord } from './agent-store.js';
import { captureRunner } from './exec-captures.js';
import { runExecStretch } from './exec-stretch.js';
import { generationSetup, readableBy, windowOptionsOf } from './generation-setup.js';
import type { ProjectCore } from './project-core.js';
import { proposalForReview } from './proposal-reader.js';
import { runSessionStretch } from './session-stretch.js';
import { watchStopRequest } from './stop-request.js';
import { submitProposal } from './submit-proposal.js';

/**
 * Runs one stretch of an agent's life: claims it (queued → running), opens its overlay and journal, builds
 * its kernel from the governance it started under, runs its attempts, and leaves it `reviewing` (with a
 * summary, its changes and a preview) or `failed` (with the reason). Whatever happens, it never stays
 * `running` once this returns.
 */
export async function runAgent(core: ProjectCore, id: string): Promise<void> {
  let record: AgentRecord;
  const started = core.clock();
  try {
    // an agent a coordinator had put on its queue runs here as this process's own: no job, no token
    const handedBack = core.store.get(id)?.remoteJob === undefined ? {} : { remoteJob: undefined, tokenHash: undefined };
    record = core.lifecycle.move(
      id,
      ['queued'],
      'running',
      { owner: core.owner, rerunOnInterrupt: core.rerunsInterrupted, ...handedBack },
      'start',
      (moved) => ({
        type: 'agent.started',
        time: iso(started),
        agentId: id,
        run: moved.runs + 1,
        // a run started over after an interruption (see `recoverOrphans`) has the number of the one rolled back
        ...(moved.runs === 0 && (moved.interruptions ?? 0) > 0 ? { again: true as const } : {}),
      }),
    );
  } catch {
    return;
  }
  let workspace: AgentWorkspace | undefined;
  const run = core.running.start(id);
  const unwatch = watchStopRequest(core.store, id, (reason) => void core.running.stop(id, reason));
  try {
    workspace = AgentWorkspace.open(id, core.layout.overlayPath(id), core.stable, record.journalHead);
    const outcome = await runStretch(core, record, workspace, started, run.signal);
    await finish(core, record, workspace, outcome, started);
  } catch (error) {
    fail(core, id, { code: 'internal', message: `Cairn failed while running the agent: ${(error as Error).message}` }, workspace, {
      runs: 0,
      repairs: 0,
      calls: 0,
      wallMs: core.clock() - started,
    });
  } finally {
    // whoever waits for the agent's final record goes first; closing its database (a WAL checkpoint) can wait
    await new Promise<void>((resolve) => setImmediate(resolve));
    workspace?.close();
    unwatch();
    run.end();
  }
}

async function runStretch(
  core: ProjectCore,
  record: AgentRecord,
  workspace: AgentWorkspace,
  started: number,
  signal: AbortSignal,
): Promise<AttemptsOutcome> {
  const { journal, blobs } = workspace;
  let governance: CompiledGovernance;
  const first = journal.length === 0;
  const spent = record.spent;
  const repairsLeft = Math.max(0, record.budgets.repairs - spent.repairs);
  const segment = { first_run: record.runs + 1, repairs_left: repairsLeft, calls_left: Math.max(0, record.budgets.calls - spent.calls) };
  if (first) {
    const compiled = startingGovernance(core.layout, record);
    governance = compiled;
    // the governance blob commits with the entry that names it
    workspace.transaction(() =>
      appendCairnEntry(journal, SCHEMAS.agentStarted, {
        ...segment,
        agent: record.id,
        task: record.task,
        origin: record.origin,
        lang: record.lang,
        model: record.model ?? '',
        governance_ref: blobs.put(compiled.json),
        ...(record.tokenHash === undefined ? {} : { token: record.tokenHash }),
      }),
    );
  } else {
    governance = governanceOf(workspace);
    const value = { ...segment, feedback: record.feedback ?? '' };
    workspace.transaction(() => appendCairnEntry(journal, SCHEMAS.revisionStarted, value));
  }
  const kernel = createAgentKernel(governance, journal, core.signer, workspace.spent(), () => BigInt(started) * 1_000_000n);
  const model = record.model ?? core.defaultModel;
  const review: ReviewContext | undefined =
    record.role === 'reviewer' && record.reviews !== undefined
      ? { reviews: record.reviews, proposal: () => proposalForReview(core, record.reviews!) }
      : undefined;
  const source: RunSource = {
    agentId: record.id,
    task: record.task,
    model,
    ...(record.feedback === undefined ? {} : { feedback: record.feedback }),
    ...(review === undefined ? {} : { review }),
    governance,
    kernel,
    journal,
    blobs,
    overlay: workspace.overlay,
    checkRunner:
      core.runCheck ??
      ((spec, changes, timeoutMs) =>
        runSealed({ root: core.layout.root, changes, command: spec.command, timeoutMs, outputCapBytes: spec.outputCapBytes })),
    viewBlobs: blobs,
    touched: workspace.touched,
    transaction: (fn) => workspace.transaction(fn),
    toolLog: workspace.overlay.tools,
    signer: core.signer,
    // the client is made on the first model call: a program that never asks one needs no model settings
    callModel: (params) => modelCaller(core.modelClient(), blobs, { ...windowOptionsOf(core, record), signal })(params),
    emit: (event) => core.emit(event),
    clockOf: () => core.clock,
  };
  const contextFor = (run: number): RunContext => {
    // each attempt decides afresh: a decision of a run that was rolled back does not count
    if (review !== undefined) delete review.decision;
    const ctx = buildRunContext(source, run);
    if (record.modelOptions !== undefined) ctx.modelOptions = record.modelOptions;
    return ctx;
  };
  const host: AttemptHost = {
    sandbox: core.sandbox(),
    contextFor,
    firstRun: record.runs + 1,
    clockFor: () => core.clock(),
    limitsFor: (callsSoFar) => {
      const wallLeft = record.budgets.wallMs - spent.wallMs - (core.clock() - started);
      const callsLeft = record.budgets.calls - spent.calls - callsSoFar;
      if (wallLeft <= 0) return budgetFailure('wall time', `${record.budgets.wallMs} ms`);
      if (callsLeft <= 0) return budgetFailure('calls', `${record.budgets.calls} tool calls`);
      const limits: RunLimits = {
        wallMs: Math.min(record.limits.wallMs, wallLeft),
        cpuMs: record.limits.cpuMs,
        memoryMb: record.limits.memoryMb,
        calls: callsLeft,
      };
      return limits;
    },
    onGenerating: (_run, round) => core.emit({ type: 'agent.generating', time: iso(core.clock()), agentId: record.id, model, round }),
    generation: generationSetup(core, record, readableBy(governance, record.id)),
    signal,
    onRepairing: (round, problem) => core.emit({ type: 'agent.repairing', time: iso(core.clock()), agentId: record.id, round, problem }),
  };
  const outcome =
    record.session !== undefined
      ? await runSessionStretch(core, record, workspace, governance, signal, captureRunner(workspace, record, host, segment))
      : record.exec === undefined
        ? await runAttempts(
            {
              origin: record.origin,
              lang: record.lang,
              ...(record.code === undefined ? {} : { code: record.code }),
              ...previousOf(first || record.origin !== 'model' ? undefined : lastProgram(workspace)),
              repairsLeft,
            },
            host,
          )
        : await runExecStretch(core, record, workspace, governance, signal, captureRunner(workspace, record, host, segment));
  if (review?.decision !== undefined) outcome.decision = review.decision;
  if (outcome.ok === false && outcome.failure?.code === 'limit' && spent.calls + outcome.calls >= record.budgets.calls) {
    outcome.failure = { code: 'budget', message: `the calls budget ran out (${record.budgets.calls} tool calls)` };
  }
  return outcome;
}

function previousOf(program: string | undefined): { previousProgram?: string } {
  return program === undefined ? {} : { previousProgram: program };
}

function budgetFailure(budget: string, amount: string): AgentFailure {
  return { code: 'budget', message: `the ${budget} budget ran out (${amount})`, hint: 'give the agent a larger budget, or a smaller task' };
}

/** The governance an agent started under, from its first journal entry. */
export function governanceOf(workspace: AgentWorkspace): CompiledGovernance {
  const ref = governanceRefOf(workspace.firstEntry());
  if (ref === undefined) throw new Error("the journal does not start with the agent's governance");
  return compileGovernanceJson(workspace.blobs.text(ref));
}

/** The program of the agent's last run, from its journal. */
function lastProgram(workspace: AgentWorkspace): string | undefined {
  const last = runStartsOf(workspace.journal.entries()).at(-1);
  return last === undefined ? undefined : workspace.blobs.text(last.programRef);
}

async function finish(
  core: Pick<ProjectCore, 'clock' | 'decisions' | 'lifecycle'>,
  record: AgentRecord,
  workspace: AgentWorkspace,
  outcome: AttemptsOutcome,
  started: number,
): Promise<void> {
  const changes: ChangeInfo[] = workspace.overlay.changes().map(changeInfoOf);
  let failure = outcome.failure;
  const reviewer = record.role === 'reviewer';
  if (reviewer && outcome.ok && outcome.decision === undefined)
    failure = {
      code: 'no-decision',
      message: 'the reviewer finished without calling decide(decision, note)',
      hint: 'a reviewer program ends with decide(), e.g. decide("do:merge", "looks right")',
    };
  if (!reviewer && outcome.ok && changes.length === 0)
    failure = {
      code: 'no-changes',
      message:
        record.session === undefined ? 'the program finished without changing any file' : 'the session ended without changing any file',
      hint: 'nothing to review; check the task and the program',
    };
  const spent = {
    ...record.spent,
    calls: record.spent.calls + outcome.calls,
    wallMs: record.spent.wallMs + (core.clock() - started),
    repairs: record.spent.repairs + outcome.repairs,
    ...spendOf(workspace),
  };
  const head = workspace.head();
  const common = { owner: undefined, runs: record.runs + outcome.runs, spent, changes, journalHead: head, feedback: undefined };
  if (failure !== undefined) {
    const { code, message } = failure;
    core.lifecycle.move(record.id, ['running'], 'failed', { ...common, failure, reason: message }, 'fail', (_, time) => ({
      type: 'agent.failed',
      time,
      agentId: record.id,
      code,
      reason: message,
    }));
    return;
  }
  if (reviewer) {
    const decision = outcome.decision!;
    const written = await core.decisions.record(record, decision);
    const reason =
      'thread' in written
        ? `decided ${decision.decision} in ${written.thread}`
        : `decided ${decision.decision}; not written: ${written.why}`;
    const thread = 'thread' in written ? { thread: written.thread } : {};
    core.lifecycle.move(
      record.id,
      ['running'],
      'decided',
      { ...common, summary: reason, decision: { ...decision, ...thread }, failure: undefined, reason },
      'decide',
      (_, time) => ({
        type: 'agent.decided',
        time,
        agentId: record.id,
        reviews: record.reviews ?? '',
        decision: decision.decision,
        note: decision.note,
        ...thread,
      }),
    );
    return;
  }
  submitProposal(core, record, workspace, { summary: outcome.summary, changes, patch: common });
}

function spendOf(workspace: AgentWorkspace): { tokens: number; bytes: number } {
  return workspace.spent();
}

/** Marks an agent failed after an error of Cairn's own, keeping what its journal holds. */
function fail(
  core: Pick<ProjectCore, 'clock' | 'emit' | 'lifecycle' | 'store'>,
  id: string,
  failure: AgentFailure,
  workspace: AgentWorkspace | undefined,
  outcome: Pick<AttemptsOutcome, 'runs' | 'repairs' | 'calls' | 'wallMs'>,
): void {
  try {
    const current = core.store.require(id);
    const patch = {
      owner: undefined,
      failure,
      reason: failure.message,
      runs: current.runs + outcome.runs,
      journalHead: workspace?.head() ?? current.journalHead,
    };
    core.lifecycle.move(id, ['running'], 'failed', patch, 'fail', (_, time) => ({
      type: 'agent.failed',
      time,
      agentId: id,
      code: failure.code,
      reason: failure.message,
    }));
  } catch (error) {
    core.emit({ type: 'error', time: iso(core.clock()), agentId: id, code: 'internal', message: (error as Error).message });
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
