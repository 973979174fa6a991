import { spawn } from 'node:child_process';
import { processAlive } from '@cairn/agentfs/process-alive';
import type { AcceptItem, InboxResult } from '@cairn/api';
import { CairnError, describeCheckStatus, isCairnError, oneLine } from '@cairn/api';
import { checkProtocol, formatTriage, type Thread, type Triage } from '@cairn/triage';
import type { AgentRecord } from '../agents/agent-store.js';
import type { DecisionOutcome, DecisionRow } from './decision-store.js';
import { decisionKey, type Inbox } from './inbox.js';
import type { CustomHandler, InboxSettings } from './inbox-settings.js';
import { feedbackOf } from './thread-file.js';

/** What carrying out decisions takes: the orchestrator's own operations, without the inbox bookkeeping of the public API. */
export interface InboxExecutor {
  /**
   * All-or-nothing accept through the project's accept queue; `gated`: once the automatic checks passed on the
   * tree as it is then (waited for while they run).
   */
  accept(agentId: string, gated: boolean): Promise<AcceptItem>;
  reject(agentId: string, reason: string): void;
  reply(agentId: string, feedback: string): void;
  /** Starts the reviewer the project names `name` on the agent; returns the reviewer's id. */
  startReviewer(agentId: string, name: string): string;
  /** Writes a fresh waiting thread for an agent still `reviewing`, with a note on why. */
  rewriteThread(agentId: string, note: string): void;
}

/** What an outcome does: its audit text, whether the thread moves to `done/`. */
interface Carried {
  outcome: DecisionOutcome;
  executed: string;
  moves: boolean;
  rule?: string;
  reason?: string;
  reviewer?: string;
  afterwards?: () => void;
}

/**
 * Carries out one thread's decision, once, whoever else is processing the inbox:
 * 1. the decision (thread + triage as written) is claimed in bin.db, one per agent at a time; a claim left
 *    by a process that died is taken over, and what it did is read from the agent's state, not done again;
 * 2. the protocol is checked (no self-merge, merge needs an approval, only the owner deletes) and a merge
 *    must apply cleanly to the current project (merge requires rebase);
 * 3. the decision is carried out and its outcome recorded; then the log line is written and the thread
 *    moved to `done/` (both repeatable after a crash).
 * Returns undefined for a thread with nothing to do (no decision yet, or one already carried out).
 */
export async function processThread(inbox: Inbox, name: string, ctx: ProcessContext): Promise<InboxResult | undefined> {
  const read = inbox.read(inbox.layout.inboxDir, name);
  if (read === undefined) return undefined;
  if (!read.ok) return inbox.reportInvalid(read);
  const { thread } = read;
  if (thread.triage === undefined) return undefined;
  const key = decisionKey(name, thread);
  const decision = formatTriage(thread.triage.decision);
  const actor = thread.triage.actor;
  const claim = inbox.decisions.locked((): { row: DecisionRow; resumed: boolean } | 'busy' | 'finish' | 'unchanged' => {
    const existing = inbox.decisions.get(key);
    if (existing?.state === 'done') return existing.moves || !existing.logged ? 'finish' : 'unchanged';
    if (existing !== undefined && existing.owner !== ctx.owner && ownerAlive(existing.owner)) return 'busy';
    const other = inbox.decisions.forAgent(thread.from).find((row) => row.key !== key && row.state === 'claimed' && ownerAlive(row.owner));
    if (other !== undefined) return 'busy';
    const record = ctx.store(thread.from);
    const now = ctx.clock();
    const row: DecisionRow = {
      ...(existing ?? {
        key,
        thread: name,
        agentId: thread.from,
        decision,
        actor,
        state: 'claimed',
        moves: false,
        logged: false,
        approval: false,
        at: now,
        ...(record === undefined
          ? {}
          : { before: { state: record.state, runs: record.runs, updatedAt: record.updatedAt, claimedAt: now } }),
      }),
      owner: ctx.owner,
    };
    inbox.decisions.put(row);
    return { row, resumed: existing !== undefined };
  });
  if (claim === 'busy' || claim === 'unchanged') return undefined;
  if (claim === 'finish') {
    const row = inbox.decisions.get(key)!;
    const moved = inbox.finish(row, thread.title);
    return resultOf(row, moved.movedTo);
  }
  const { row, resumed } = claim;
  let carried: Carried;
  try {
    carried = (resumed ? recoverClaim(row, ctx) : undefined) ?? (await carryOut(row, thread, thread.triage.decision, ctx));
  } catch (error) {
    // the process is closing: the claim stays, and the next process carries the decision out
    if (isCairnError(error, 'CAIRN_CLOSED')) throw error;
    const message = (error as Error).message;
    carried = isExpected(error)
      ? { outcome: 'stale', executed: `✗ stale: ${oneLine(message)}`, moves: true, reason: message }
      : { outcome: 'failed', executed: `✗ failed: ${oneLine(message)}`, moves: false, reason: message };
  }
  const done: DecisionRow = {
    ...row,
    state: 'done',
    outcome: carried.outcome,
    executed: carried.executed,
    moves: carried.moves,
    approval: row.approval,
    ...(carried.rule === undefined ? {} : { rule: carried.rule }),
    ...(carried.reason === undefined ? {} : { reason: carried.reason }),
  };
  delete done.owner;
  inbox.decisions.locked(() => inbox.decisions.put(done));
  const moved = inbox.finish(done, thread.title);
  carried.afterwards?.();
  const result = resultOf(done, moved.movedTo);
  if (carried.reviewer !== undefined) result.reviewer = carried.reviewer;
  return result;
}

/** What processing a thread needs besides the inbox. */
export interface ProcessContext {
  /** The project's folder: where a custom handler runs. */
  root: string;
  owner: string;
  clock: () => number;
  store(agentId: string): AgentRecord | undefined;
  /** Agent ids and reviewer names are agents; any other actor is a person. */
  isAgent(actor: string): boolean;
  settings(): InboxSettings;
  executor: InboxExecutor;
  /** Earlier approvals of an agent's proposal recorded in the inbox. */
  approvalsOf(agentId: string): string[];
}

async function carryOut(row: DecisionRow, thread: Thread, decision: Triage, ctx: ProcessContext): Promise<Carried> {
  const record = ctx.store(thread.from);
  if (record === undefined)
    return {
      outcome: 'failed',
      executed: `✗ failed: no agent ${thread.from}`,
      moves: false,
      reason: `no agent ${thread.from} in this project`,
    };
  if (record.state !== 'reviewing') {
    const reason = `agent ${record.id} is ${record.state}, no longer waiting for a decision`;
    return { outcome: 'stale', executed: `✗ stale: ${record.id} is ${record.state}`, moves: true, reason };
  }
  const settings = ctx.settings();
  const actor = row.actor;
  const named = settings.reviewers.get(actor);
  const approves = named !== undefined ? named.approver : !ctx.isAgent(actor);
  row.approval = decision.type === 'do' && decision.action.type === 'merge' && approves && actor !== record.id;
  const approvals = [...ctx.approvalsOf(record.id), ...(row.approval ? [actor] : [])];
  const verdict = checkProtocol(decision, {
    author: thread.from,
    reviewer: thread.triage!.actor,
    branch: thread.branch,
    ...(record.createdBy === undefined ? {} : { branchOwner: record.createdBy as Thread['from'] }),
    approvals: approvals as Thread['from'][],
    baseUpToDate: true,
  });
  if (!verdict.allowed) {
    if (verdict.rule === 'merge-requires-approval')
      return refused(
        verdict.rule,
        `a merge needs an approval from a person or from a reviewer .cairn/config.json names as an approver; ${actor} is neither` +
          ` — a person can decide do:merge in the thread instead`,
      );
    return refused(verdict.rule, verdict.reason);
  }
  switch (decision.type) {
    case 'do':
      switch (decision.action.type) {
        case 'merge': {
          const item = await ctx.executor.accept(record.id, settings.requirePassingChecks);
          switch (item.status) {
            case 'accepted':
              return { outcome: 'merged', executed: '✓ merged', moves: true };
            case 'checks-failed':
              return refused(
                'merge-requires-passing-checks',
                `${record.id}'s checks did not pass: ${item.checks.map((check) => `${check.name} ${describeCheckStatus(check)}`).join(', ')}; decide do:reply to have it fixed`,
              );
            case 'conflict':
              return refused(
                'merge-requires-rebase',
                `${record.id} no longer applies cleanly to the project (conflict in ${item.conflicts.map((c) => c.path).join(', ')}); ` +
                  `decide do:reply to have it revised, or accept by hand with \`cairn accept ${record.id} --force\``,
              );
            case 'refused':
              throw new CairnError(item.code as CairnError['code'], item.message, item.hint === undefined ? {} : { hint: item.hint });
            case 'left':
              throw new Error('unreachable: a single accept is never left queued');
          }
          break;
        }
        case 'reply': {
          const feedback = feedbackOf(thread.body, `Revise your proposal (decided by ${actor} in ${row.thread}).`);
          ctx.executor.reply(record.id, feedback);
          return { outcome: 'replied', executed: `✓ replied on ${decision.action.branch}`, moves: true };
        }
        case 'custom':
          return runCustom(settings.customHandler, row, decision.action.description, ctx);
      }
      break;
    case 'delete':
      ctx.executor.reject(record.id, decision.reason);
      return { outcome: 'rejected', executed: '✓ deleted', moves: true };
    case 'defer':
      return { outcome: 'deferred', executed: `— deferred: ${decision.reason}`, moves: false, reason: decision.reason };
    case 'delegate': {
      const to = decision.actor;
      const reviewer = settings.reviewers.get(to);
      return {
        outcome: 'delegated',
        executed: `✓ delegated to ${to}`,
        moves: true,
        afterwards: () => {
          ctx.executor.rewriteThread(record.id, `Delegated to ${to} by ${actor} (${row.thread}): the decision is ${to}'s.`);
          if (reviewer !== undefined) ctx.executor.startReviewer(record.id, to);
        },
      };
    }
  }
  throw new Error('unreachable decision');
}

function refused(rule: string, reason: string): Carried {
  return { outcome: 'refused', executed: `✗ refused: ${rule}`, moves: false, rule, reason };
}

/**
 * A claim whose process died: whether its decision took effect, read from the agent (accepted, rejected,
 * revising). A custom handler may or may not have finished, so it is not run again. Undefined: carry it out.
 */
function recoverClaim(row: DecisionRow, ctx: ProcessContext): Carried | undefined {
  const record = ctx.store(row.agentId);
  const before = row.before;
  if (record === undefined || before === undefined) return undefined;
  const decision = row.decision;
  if (decision === 'do:merge' && record.state === 'accepted') return { outcome: 'merged', executed: '✓ merged', moves: true };
  if (decision.startsWith('delete:') && record.state === 'rejected') return { outcome: 'rejected', executed: '✓ deleted', moves: true };
  if (decision.startsWith('do:reply:') && (record.runs > before.runs || record.state === 'queued' || record.state === 'running'))
    return { outcome: 'replied', executed: `✓ replied on ${decision.slice('do:reply:'.length)}`, moves: true };
  if (decision.startsWith('do:custom:'))
    return {
      outcome: 'failed',
      executed: '✗ failed: interrupted while the custom handler ran; not run again',
      moves: false,
      reason: 'the process carrying out the decision stopped while the handler ran; it may or may not have finished',
    };
  return undefined;
}

async function runCustom(handler: CustomHandler | undefined, row: DecisionRow, description: string, ctx: ProcessContext): Promise<Carried> {
  if (handler === undefined)
    return {
      outcome: 'unhandled',
      executed: '— custom: no handler configured',
      moves: false,
      reason: 'recorded; a custom decision is carried out only by the handler in .cairn/config.json (inbox.customHandler)',
    };
  const [program, ...args] = handler.command;
  const env = {
    ...process.env,
    CAIRN_AGENT: row.agentId,
    CAIRN_THREAD: row.thread,
    CAIRN_DESCRIPTION: description,
    CAIRN_ACTOR: row.actor,
  };
  const outcome = await new Promise<{ code: number | null; signal: string | null; error?: string; output: string }>((resolve) => {
    let output = '';
    const child = spawn(program!, args, { cwd: ctx.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), handler.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
    child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-2000)));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, error: error.message, output });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
  if (outcome.code === 0) return { outcome: 'custom', executed: `✓ custom: ${description}`, moves: true };
  const why =
    outcome.error ??
    (outcome.signal !== null ? `killed by ${outcome.signal} (timeout ${handler.timeoutMs} ms?)` : `exited with ${outcome.code}`);
  const tail = outcome.output.trim().split('\n').pop();
  return {
    outcome: 'failed',
    executed: `✗ failed: custom handler ${why}`,
    moves: false,
    reason: `the custom handler ${why}${tail ? `: ${tail}` : ''}`,
  };
}

function ownerAlive(owner: string | undefined): boolean {
  const pid = Number((owner ?? '').split(':')[0]);
  return Number.isSafeInteger(pid) && pid > 0 && processAlive(pid);
}

function resultOf(row: DecisionRow, movedTo: string | undefined): InboxResult {
  const result: InboxResult = {
    thread: row.thread,
    agentId: row.agentId,
    decision: row.decision,
    actor: row.actor,
    outcome: row.outcome ?? 'failed',
    executed: row.executed ?? '—',
  };
  if (row.rule !== undefined) result.rule = row.rule;
  if (row.reason !== undefined) result.reason = row.reason;
  if (movedTo !== undefined) result.movedTo = movedTo;
  return result;
}

/** True for the errors an executor's operation reports as an outcome rather than a fault of Cairn's. */
export function isExpected(error: unknown): boolean {
  return isCairnError(error, 'CAIRN_INVALID_STATE') || isCairnError(error, 'CAIRN_BUSY');
}
