import type { AgentFailure, ProgramLang } from '@cairn/api';
import { formatRepairReport } from '@cairn/model';
import type { OneCall, ProgramError, Sandbox } from '@cairn/sandbox';
import { appendCairnEntry, SCHEMAS } from '@cairn/workspace';
import type { RunContext } from '../run/run-context.js';
import { TOOL_NAMES } from '../tools/tool-table.js';
import { type GenerationSetup, generateProgram } from './generate-program.js';
import { type ProgramRunResult, type RunLimits, rollbackRun, runProgram } from './program-run.js';

/** What one stretch of an agent's work (its first start, or a revision) sets out to do. */
export interface AttemptPlan {
  origin: 'code' | 'model';
  lang: ProgramLang;
  /** The user's program (`code` agents). */
  code?: string;
  /** When `code` is one tool call (an MCP client's): the call, run without an isolate. */
  call?: OneCall;
  /** The program behind the proposal being revised (model agents, on `do:reply`). */
  previousProgram?: string;
  repairsLeft: number;
}

/** What the attempts need from the agent around them. */
export interface AttemptHost {
  sandbox: Sandbox;
  /** A context for run number `run` (one kernel and journal for the whole stretch). */
  contextFor(run: number): RunContext;
  firstRun: number;
  /** The clock a run starts at (recorded; a replay passes the recorded one). */
  clockFor(run: number): number;
  /** The limits a run may use (given the tool calls made so far in this stretch), or the budget that ran out. */
  limitsFor(callsSoFar: number): RunLimits | AgentFailure;
  onGenerating(run: number, round: number): void;
  onRepairing(round: number, problem: string): void;
  /** How a live generation fits its prompt to the model's window (absent in a replay). */
  generation?: GenerationSetup;
  /** Set when the agent is stopped (rejected) while it runs: no further round starts. */
  signal?: AbortSignal;
}

/** How the attempts ended. */
export interface AttemptsOutcome {
  ok: boolean;
  failure?: AgentFailure;
  summary?: string;
  /** A reviewer's decision, from its last run. */
  decision?: { decision: string; note: string };
  runs: number;
  repairs: number;
  calls: number;
  wallMs: number;
  program?: string;
  /** What the last run's program returned, when it ended ok. */
  value?: unknown;
}

/**
 * Runs a user's program once, or for a model: asks for a program, checks it, runs it, and on a refusal or
 * a runtime error sends the report back for another round (up to the repairs left). A failed attempt's
 * writes are rolled back so the next starts clean; the last attempt's stay, to be looked at.
 */
export async function runAttempts(plan: AttemptPlan, host: AttemptHost): Promise<AttemptsOutcome> {
  const outcome: AttemptsOutcome = { ok: false, runs: 0, repairs: 0, calls: 0, wallMs: 0 };
  let previous = plan.previousProgram === undefined ? undefined : { program: plan.previousProgram, report: '' };
  for (let round = 0; ; round++) {
    if (isStopped(host)) return { ...outcome, failure: stopped() };
    const limits = host.limitsFor(outcome.calls);
    if (!('wallMs' in limits)) return { ...outcome, failure: limits };
    const run = host.firstRun + outcome.runs;
    const ctx = host.contextFor(run);
    outcome.runs++;
    let code = plan.code;
    if (plan.origin === 'model') {
      host.onGenerating(run, round);
      const generated = await generateProgram(ctx, plan.lang, previous, host.generation);
      if (generated.type === 'fault') return { ...outcome, failure: isStopped(host) ? stopped() : generated.failure };
      if (generated.type === 'unusable') {
        if (!repairAllowed(plan, outcome, host, generated.problem))
          return { ...outcome, failure: { code: 'model-answer', message: `the model gave no usable program: ${generated.problem}` } };
        previous = { program: generated.answer, report: generated.problem };
        continue;
      }
      code = generated.code;
      const checked = host.sandbox.check(code, plan.lang === 'py' ? 'python' : 'js');
      if (!checked.ok) {
        const report = formatRepairReport({ kind: 'check', problems: checked.problems, program: code });
        ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.programRefused, { run, report }));
        if (!repairAllowed(plan, outcome, host, report))
          return {
            ...outcome,
            program: code,
            failure: { code: 'program-rejected', message: `the model's program was refused: ${firstLine(report)}` },
          };
        previous = { program: code, report };
        continue;
      }
    }
    const program = { code: code!, lang: plan.lang, ...(plan.call === undefined ? {} : { call: plan.call }) };
    const result = await runProgram(ctx, host.sandbox, program, limits, host.clockFor(run));
    outcome.calls += result.calls;
    outcome.wallMs += result.wallMs;
    outcome.program = code!;
    if (ctx.breach !== undefined)
      return { ...outcome, failure: { code: 'budget', message: `the ${ctx.breach.budget} budget ran out: ${ctx.breach.message}` } };
    if (ctx.divergence !== undefined) return { ...outcome, failure: { code: 'replay-diverged', message: ctx.divergence.reason } };
    if (result.status === 'ok') {
      outcome.ok = true;
      outcome.value = result.value;
      if (ctx.submission !== undefined) outcome.summary = ctx.submission.summary;
      return outcome;
    }
    const failure = failureOf(result, limits);
    if (plan.origin === 'code') return { ...outcome, failure };
    const report =
      formatRepairReport(
        result.failedCall !== undefined && result.status === 'error' && /ToolError/.test(result.error?.name ?? '')
          ? { kind: 'call', call: result.failedCall, program: code! }
          : { kind: 'runtime', error: result.error ?? { name: result.status, message: failure.message }, program: code! },
      ) + (failure.hint !== undefined && failure.code === 'program-error' ? `\n${failure.hint}` : '');
    if (!repairAllowed(plan, outcome, host, report)) return { ...outcome, failure };
    ctx.transaction(() => {
      rollbackRun(ctx.view);
      appendCairnEntry(ctx.journal, SCHEMAS.runRolledBack, { run });
    });
    previous = { program: code!, report };
  }
}

function isStopped(host: AttemptHost): boolean {
  return host.signal?.aborted === true;
}

function stopped(): AgentFailure {
  return {
    code: 'cancelled',
    message: 'the agent was stopped while it ran',
    hint: 'it was rejected; `cairn restore` brings it back to look at',
  };
}

function repairAllowed(plan: AttemptPlan, outcome: AttemptsOutcome, host: AttemptHost, problem: string): boolean {
  if (outcome.repairs >= plan.repairsLeft) return false;
  outcome.repairs++;
  host.onRepairing(outcome.repairs, firstLine(problem));
  return true;
}

/** The failure a run's status stands for. */
export function failureOf(result: ProgramRunResult, limits: RunLimits): AgentFailure {
  const error: ProgramError | undefined = result.error;
  const where = error?.line === undefined ? '' : ` (line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`})`;
  switch (result.status) {
    case 'error': {
      // a Python program that exited with a status other than 0 (the sandbox words it: "the program exited with status 3")
      if (error?.name === 'SystemExit') return { code: 'program-error', message: `${firstLine(error.message)}${where}` };
      const failure: AgentFailure = {
        code: 'program-error',
        message: `the program failed: ${error?.name ?? 'Error'}: ${firstLine(error?.message ?? '')}${where}`,
      };
      const hint = unknownNameHint(error);
      return hint === undefined ? failure : { ...failure, hint };
    }
    case 'timeout':
      return {
        code: 'timeout',
        message: `the program ran out of time (${limits.wallMs} ms of wall time, ${limits.cpuMs} ms of CPU)`,
        hint: 'raise the limit with --wall-ms, or give the agent a smaller task',
      };
    case 'memory':
      return { code: 'memory', message: `the program ran out of memory (${limits.memoryMb} MiB)` };
    case 'limit':
      return { code: 'limit', message: firstLine(error?.message ?? `the program made more than ${limits.calls} tool calls`) };
    case 'rejected': {
      const problem = firstLine(error?.message ?? '');
      // the checker's message may lead with the place already
      const place = /^line \d+(, column \d+)?: /.test(problem) ? '' : where;
      return { code: 'program-rejected', message: `the program was refused before it ran: ${problem}${place}` };
    }
    case 'crashed':
      return { code: 'crashed', message: `the program's sandbox process died: ${firstLine(error?.message ?? '')}` };
    default:
      return { code: 'program-error', message: `the program ended with status ${result.status}` };
  }
}

/**
 * For a program that used a name it never defined (JavaScript's ReferenceError, Python's NameError): that it is
 * not a tool function, and which ones there are. Told to the user, and to the model repairing its program.
 */
function unknownNameHint(error: ProgramError | undefined): string | undefined {
  if (error?.name !== 'ReferenceError' && error?.name !== 'NameError') return undefined;
  const named = /^([\p{L}_$][\p{L}\p{N}_$]*) is not defined$/u.exec(error.message) ?? /^name '([^']+)' is not defined$/.exec(error.message);
  return named === null ? undefined : `${named[1]} is not one of the tool functions a program can call: ${TOOL_NAMES.join(', ')}`;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 500);
}
