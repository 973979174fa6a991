import type { InboxResult, InboxThread } from '@cairn/daemon/client';
import { connect } from '../connect.js';
import { type CommandContext, UsageError } from '../context.js';
import type { Paint } from '../output.js';
import { noteUnsynced } from '../render/unsynced.js';

/** `cairn inbox [--all]`: the review threads, pending and decided (and processed ones with `--all`). */
export async function inboxCommand(ctx: CommandContext, flags: { all?: boolean }): Promise<number> {
  // a sync that makes check results stale rewrites the threads' Checks sections before they are listed
  const conn = await connect(ctx.root, { runs: false, sync: 'or-warn' });
  noteUnsynced(ctx.out, conn);
  try {
    const threads = await conn.api.inbox({ all: flags.all === true });
    ctx.out.result(true, { threads });
    if (threads.length === 0) {
      ctx.out.line(ctx.out.paint.dim('the inbox is empty: a thread appears here when an agent submits a proposal'));
      return 0;
    }
    for (const thread of threads) for (const line of describeThread(thread, ctx.out.paint)) ctx.out.line(line);
    const waiting = threads.filter((t) => t.status === 'decided').length;
    if (waiting > 0)
      ctx.out.line(ctx.out.paint.dim(`\n${waiting} decided thread${waiting === 1 ? '' : 's'} to carry out: \`cairn inbox process\``));
    return 0;
  } finally {
    await conn.close();
  }
}

/** `cairn inbox process`: carries out every decided thread under the protocol; exit 1 when one was not carried out (refused, failed, unreadable, stale, unhandled). */
export async function inboxProcessCommand(ctx: CommandContext): Promise<number> {
  const conn = await connect(ctx.root, { sync: true });
  try {
    const outcome = await conn.api.processInbox();
    ctx.out.result(outcome.ok, { results: outcome.results });
    if (outcome.results.length === 0) ctx.out.line(ctx.out.paint.dim('nothing to do: no thread holds a new decision'));
    for (const result of outcome.results) for (const line of describeResult(result, ctx.out.paint)) ctx.out.line(line);
    // a reply or a delegation to a reviewer starts agents: without a daemon they run here, so wait for them
    if (conn.project !== undefined) await conn.project.close();
    return outcome.ok ? 0 : 1;
  } finally {
    await conn.close();
  }
}

/** `cairn inbox log [--date YYYY-MM-DD]`: one day of the audit log (default today, UTC). */
export async function inboxLogCommand(ctx: CommandContext, flags: { date?: string }): Promise<number> {
  if (flags.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(flags.date))
    throw new UsageError(`--date takes a day like 2026-11-23 (got ${JSON.stringify(flags.date)})`);
  const conn = await connect(ctx.root);
  try {
    const log = await conn.api.inboxLog(flags.date);
    const ok = log.problems === undefined;
    ctx.out.result(ok, { ...log });
    const { paint } = ctx.out;
    if (log.problems !== undefined) {
      ctx.out.line(`${paint.red('the log does not read back')}: ${log.path}`);
      for (const p of log.problems) ctx.out.line(`  line ${p.line}, column ${p.column}: ${p.message}`);
      return 1;
    }
    if (log.entries.length === 0) {
      ctx.out.line(paint.dim(`nothing logged on ${log.date}`));
      return 0;
    }
    ctx.out.line(paint.bold(`Inbox log ${log.date}`) + paint.dim(`  ${log.path}`));
    const width = Math.max(6, ...log.entries.map((e) => e.source.length));
    const decisionWidth = Math.max(8, ...log.entries.map((e) => e.decision.length));
    ctx.out.line(paint.dim(`${'time'.padEnd(5)}  ${'source'.padEnd(width)}  ${'decision'.padEnd(decisionWidth)}  executed`));
    for (const e of log.entries) {
      const executed = e.executed.startsWith('✓')
        ? paint.green(e.executed)
        : e.executed.startsWith('✗')
          ? paint.red(e.executed)
          : e.executed;
      ctx.out.line(`${e.time}  ${e.source.padEnd(width)}  ${e.decision.padEnd(decisionWidth)}  ${executed}`);
    }
    return 0;
  } finally {
    await conn.close();
  }
}

const STATUS_PAINT: Record<InboxThread['status'], keyof Paint> = {
  pending: 'yellow',
  decided: 'cyan',
  processing: 'cyan',
  deferred: 'dim',
  refused: 'red',
  failed: 'red',
  unhandled: 'magenta',
  invalid: 'red',
  done: 'green',
};

/** A thread as lines for people: status, agent, title, the decision and what became of it. */
export function describeThread(thread: InboxThread, paint: Paint): string[] {
  const status = paint[STATUS_PAINT[thread.status]](thread.status.padEnd(10));
  const who = thread.agentId === undefined ? '' : `${paint.bold(thread.agentId)}  `;
  const lines = [`${status} ${who}${thread.title ?? thread.name}`];
  if (thread.decision !== undefined)
    lines.push(`           ${thread.decision} by ${thread.actor ?? '?'}${thread.executed === undefined ? '' : ` → ${thread.executed}`}`);
  if (thread.reason !== undefined && thread.status !== 'done' && !(thread.executed ?? '').includes(thread.reason))
    lines.push(`           ${paint.dim(thread.reason)}`);
  for (const d of thread.diagnostics ?? []) lines.push(`           ${paint.red(`${thread.name}:${d.line}:${d.column}`)} ${d.message}`);
  lines.push(paint.dim(`           ${thread.path}`));
  return lines;
}

function describeResult(result: InboxResult, paint: Paint): string[] {
  const mark = result.executed.startsWith('✓')
    ? paint.green(result.executed)
    : result.executed.startsWith('✗')
      ? paint.red(result.executed)
      : result.executed;
  const head =
    result.outcome === 'invalid'
      ? `${paint.bold(result.thread)}`
      : `${paint.bold(result.agentId ?? '?')} ${result.decision ?? ''} by ${result.actor ?? '?'}`;
  const lines = [`${head}: ${result.outcome === 'invalid' ? paint.red('cannot read the decision') : mark}`];
  if (result.outcome === 'invalid')
    for (const d of result.diagnostics ?? []) lines.push(`  ${paint.red(`${result.thread}:${d.line}:${d.column}`)} ${d.message}`);
  else if (result.reason !== undefined) lines.push(`  ${paint.dim(result.reason)}`);
  if (result.reviewer !== undefined) lines.push(`  reviewer ${paint.bold(result.reviewer)} started`);
  if (result.movedTo !== undefined) lines.push(paint.dim(`  thread moved to done/${result.movedTo}`));
  return lines;
}
