import type { AgentInfo, AgentState, CairnEvent } from '@cairn/daemon/client';
import type { Paint } from '../output.js';
import { changedFileCount } from './changed-files.js';
import { checksCell, renderChecks } from './checks.js';
import { describeEvent } from './events.js';
import { formatAge } from './time.js';

/** An agent's state, coloured by what it asks of the reader. */
export function paintState(state: AgentState, paint: Paint): string {
  switch (state) {
    case 'reviewing':
      return paint.yellow(state);
    case 'accepted':
      return paint.green(state);
    case 'failed':
      return paint.red(state);
    case 'rejected':
      return paint.dim(state);
    default:
      return paint.cyan(state);
  }
}

/** The `cairn ls` table: id, state, age, changed files, checks, kind (`model`, `code`, `exec:claude`), task. */
export function renderAgentTable(agents: readonly AgentInfo[], paint: Paint, width = process.stdout.columns ?? 100): string[] {
  if (agents.length === 0) return [paint.dim('no agents yet — spawn one with `cairn spawn --code FILE "task"` or `cairn spawn "task"`')];
  const idWidth = Math.max(2, ...agents.map((a) => a.id.length));
  const cells = agents.map((agent) => checksCell(agent));
  const checksWidth = Math.max(6, ...cells.map((cell) => truncate(cell.text, 16).length));
  const kindWidth = Math.max(4, ...agents.map((agent) => truncate(agent.kind ?? agent.origin, 16).length));
  const lines = [
    paint.dim(
      `${'ID'.padEnd(idWidth)}  ${'STATE'.padEnd(9)}  ${'AGE'.padStart(4)}  ${'FILES'.padStart(5)}  ${'CHECKS'.padEnd(checksWidth)}  ${'KIND'.padEnd(kindWidth)}  TASK`,
    ),
  ];
  agents.forEach((agent, index) => {
    const files = agent.changes === undefined ? '' : String(changedFileCount(agent.changes));
    const fixed = idWidth + 2 + 9 + 2 + 4 + 2 + 5 + 2 + checksWidth + 2 + kindWidth + 2;
    const kind = truncate(agent.kind ?? agent.origin, 16).padEnd(kindWidth);
    // an agent run on a worker names it before its task
    const where = agent.worker === undefined ? '' : `@${agent.worker} `;
    const task = truncate(where + agent.task.replace(/\s+/g, ' '), Math.max(20, width - fixed));
    const cell = cells[index]!;
    const text = truncate(cell.text, 16);
    const paintCell = cell.status === 'passed' ? paint.green : cell.status === 'failed' ? paint.red : paint.yellow;
    const checks = `${paintCell(text)}${' '.repeat(checksWidth - text.length)}`;
    lines.push(
      `${paint.bold(agent.id.padEnd(idWidth))}  ${paintState(agent.state, paint)}${' '.repeat(Math.max(0, 9 - agent.state.length))}  ${formatAge(agent.createdAt).padStart(4)}  ${files.padStart(5)}  ${checks}  ${paint.dim(kind)}  ${task}`,
    );
  });
  return lines;
}

/**
 * Below the `cairn ls` table: queued agents that wait for want of a worker (their reason says so), grouped by
 * reason, so nobody takes `queued` for stuck.
 */
export function renderWaiting(agents: readonly AgentInfo[], paint: Paint): string[] {
  const byReason = new Map<string, string[]>();
  for (const agent of agents)
    if (agent.state === 'queued' && agent.reason !== undefined)
      byReason.set(agent.reason, [...(byReason.get(agent.reason) ?? []), agent.id]);
  return [...byReason].map(([reason, ids]) => {
    const named = ids.length > 4 ? `${ids.slice(0, 4).join(', ')}, …` : ids.join(', ');
    return `${paint.yellow(`${ids.length} queued`)} (${named}): ${reason}`;
  });
}

/** `cairn status`: the agent in full. */
export function renderAgentDetail(agent: AgentInfo, history: readonly CairnEvent[], paint: Paint): string[] {
  const lines = [`${paint.bold(`agent ${agent.id}`)}  ${paintState(agent.state, paint)}`, `task:     ${agent.task}`];
  lines.push(`program:  ${programLine(agent)}`);
  lines.push(`created:  ${agent.createdAt} (${formatAge(agent.createdAt)} ago), updated ${agent.updatedAt}`);
  if (agent.worker !== undefined) lines.push(`worker:   ${agent.worker}`);
  if (agent.summary !== undefined) lines.push(`summary:  ${agent.summary}`);
  if (agent.failure !== undefined) {
    lines.push(`${paint.red('failed:')}   ${agent.failure.message} ${paint.dim(`(${agent.failure.code})`)}`);
    if (agent.failure.hint !== undefined) lines.push(`hint:     ${agent.failure.hint}`);
  } else if (agent.reason !== undefined) lines.push(`${agent.state === 'queued' ? 'waiting:' : 'reason: '}  ${agent.reason}`);
  const s = agent.spent;
  lines.push(
    `spent:    ${agent.runs} run${agent.runs === 1 ? '' : 's'}, ${s.calls} tool calls, ${s.tokens} tokens, ${s.bytes} bytes written, ${(s.wallMs / 1000).toFixed(1)} s, ${s.repairs} repairs`,
  );
  if (agent.changes !== undefined && agent.changes.length > 0) {
    lines.push('changes:');
    for (const change of agent.changes)
      lines.push(`  ${statusMark(change.status, paint)} ${change.path}${change.kind === 'dir' ? '/' : ''}`);
  }
  if (agent.checks !== undefined && agent.checks.length > 0) {
    lines.push('checks:');
    lines.push(...renderChecks(agent.checks, paint, '  '));
  }
  if (history.length > 0) {
    lines.push('recent events:');
    for (const event of history) lines.push(`  ${paint.dim(event.time.slice(11, 19))} ${describeEvent(event, paint)}`);
  }
  return lines;
}

/** `A`, `M`, `D` like git's short status. */
export function statusMark(status: 'added' | 'modified' | 'deleted', paint: Paint): string {
  return status === 'added' ? paint.green('A') : status === 'deleted' ? paint.red('D') : paint.yellow('M');
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, Math.max(1, width - 1)) + '…';
}

function programLine(agent: AgentInfo): string {
  if (agent.command !== undefined) return `${agent.command.join(' ')} (${agent.kind}), in a writable sealed view`;
  return agent.origin === 'code' ? `the user's (${agent.lang})` : `written by ${agent.model ?? 'a model'} (${agent.lang})`;
}
