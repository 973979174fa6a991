import type { AcceptItem, AcceptManyOutcome, AcceptOutcome } from '@cairn/daemon/client';
import type { Paint } from '../output.js';
import { renderAccept } from './accept.js';

/** One accept of a queue as the single accept's outcome, for the lines `renderAccept` gives it. */
export function outcomeOf(item: Extract<AcceptItem, { status: 'accepted' | 'conflict' }>): AcceptOutcome {
  return item.status === 'accepted'
    ? { ok: true, applied: item.applied, conflicts: [], agent: item.agent }
    : ({ ok: false, applied: item.applied, conflicts: item.conflicts, agent: item.agent } as AcceptOutcome);
}

/** A single accept as one item of the queue it went through (the `accepts` list of `--json`). */
export function itemOf(outcome: AcceptOutcome): AcceptItem {
  const { applied, agent } = outcome;
  return outcome.ok
    ? { id: agent.id, status: 'accepted', applied, agent }
    : { id: agent.id, status: 'conflict', applied, conflicts: outcome.conflicts, agent };
}

/**
 * Accepts made in turn: each agent's lines (what went in, or why it stopped), then which went in, which stopped
 * and why, and which were left queued, with the command that goes on.
 */
export function renderAcceptQueue(outcome: AcceptManyOutcome, paint: Paint, flags: { force: boolean; partial: boolean }): string[] {
  const lines: string[] = [];
  for (const item of outcome.accepts) {
    lines.push(`${paint.bold(item.id)}: ${headline(item, paint)}`);
    if (item.status === 'accepted' || item.status === 'conflict')
      for (const line of renderAccept(outcomeOf(item), paint, { paths: [], ...flags })) lines.push(line === '' ? '' : `  ${line}`);
    if (item.status === 'refused' && item.hint !== undefined) lines.push(paint.dim(`  hint: ${item.hint}`));
  }
  const went = outcome.accepts.filter((item) => item.status === 'accepted').map((item) => item.id);
  const stopped = outcome.accepts.filter((item) => item.status !== 'accepted' && item.status !== 'left').map((item) => item.id);
  const left = outcome.accepts.filter((item) => item.status === 'left').map((item) => item.id);
  lines.push('');
  lines.push(`${paint.green(`${went.length} accepted`)}${went.length > 0 ? `: ${went.join(' ')}` : ''}`);
  if (stopped.length > 0) lines.push(`${paint.red(`${stopped.length} not accepted`)}: ${stopped.join(' ')}`);
  if (left.length > 0) {
    lines.push(`${paint.yellow(`${left.length} left queued`)} (not tried): ${left.join(' ')}`);
    lines.push(
      paint.dim(
        `  go on with \`cairn accept ${left.join(' ')}\` once ${stopped.join(' ')} is dealt with, or accept past it with --keep-going`,
      ),
    );
  }
  return lines;
}

function headline(item: AcceptItem, paint: Paint): string {
  switch (item.status) {
    case 'accepted':
      return paint.green('accepted');
    case 'conflict':
      return `${paint.red('stopped')} at a conflict`;
    case 'checks-failed':
      return `${paint.red('stopped')}: ${item.message}`;
    case 'refused':
      return `${paint.red('stopped')}: ${item.message}`;
    case 'left':
      return paint.yellow('left queued');
  }
}
