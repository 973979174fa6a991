import { existsSync, readdirSync } from 'node:fs';
import { type AgentInfo, type AgentState, projectLayout, type SkippedEntryInfo } from '@cairn/daemon/client';
import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import type { Output } from '../output.js';
import { renderAgentDetail, renderWaiting } from '../render/agents.js';
import { shortPath } from '../render/skipped.js';
import { noteUnsynced } from '../render/unsynced.js';

/** `cairn status <id>`: the agent in full, with its recent events; without an id, the project's. */
export async function statusCommand(ctx: CommandContext, id: string | undefined): Promise<number> {
  if (id === undefined) return projectStatus(ctx);
  const conn = await connect(ctx.root, { runs: false, sync: 'or-warn' });
  noteUnsynced(ctx.out, conn);
  try {
    const agent = await conn.api.agent(id);
    const history = await conn.api.history(id, 15);
    ctx.out.result(true, { agent, events: history });
    for (const line of renderAgentDetail(agent, history, ctx.out.paint)) ctx.out.line(line);
    return 0;
  } finally {
    await conn.close();
  }
}

/** The project at a glance: its agents by state, whether a daemon runs, and what the import leaves out. */
async function projectStatus(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const conn = await connect(ctx.root, { runs: false, sync: 'or-warn' });
  noteUnsynced(ctx.out, conn);
  let agents: AgentInfo[];
  let skipped: SkippedEntryInfo[];
  try {
    [agents, skipped] = await Promise.all([conn.api.agents(), conn.api.skipped()]);
  } finally {
    await conn.close();
  }
  const orphans = unrecordedDatabases(ctx.root, agents);
  const counts: Partial<Record<AgentState, number>> = {};
  for (const agent of agents) counts[agent.state] = (counts[agent.state] ?? 0) + 1;
  out.result(true, { project: ctx.root, daemon: conn.daemon, agents: counts, skipped, unrecorded: orphans });
  out.line(`project:  ${out.paint.bold(ctx.root)}`);
  out.line(`daemon:   ${conn.daemon ? 'running' : 'not running'}`);
  const summary = Object.entries(counts)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  out.line(`agents:   ${summary === '' ? 'none yet' : summary}`);
  for (const line of renderWaiting(agents, out.paint)) out.line(`waiting:  ${line}`);
  if (orphans.length > 0)
    out.line(
      `${out.paint.yellow('warning:')} ${orphans.length} agent database${orphans.length === 1 ? ' has' : 's have'} no record (${orphans.join(', ')}); \`cairn repair\` brings ${orphans.length === 1 ? 'it' : 'them'} back`,
    );
  for (const line of renderSkipped(skipped, out)) out.line(line);
  return 0;
}

/** The list of entries the import leaves out, for `cairn status`. */
function renderSkipped(skipped: readonly { path: string; reason: string }[], out: Output): string[] {
  if (skipped.length === 0) return [`skipped:  nothing (every file is imported)`];
  const lines = [
    `skipped:  ${skipped.length} entr${skipped.length === 1 ? 'y' : 'ies'} the import leaves out (agents do not see them; Cairn never writes or deletes them):`,
  ];
  const width = Math.min(60, Math.max(...skipped.map((s) => shortPath(s.path).length)));
  for (const entry of skipped) lines.push(`  ${shortPath(entry.path).padEnd(width)}  ${out.paint.dim(entry.reason)}`);
  return lines;
}

/** A path cut in the middle for a line meant for people (JSON keeps it whole). */

/** Ids of `agent-<id>.db` files in `.agentfs/` that no agent record names. */
function unrecordedDatabases(root: string, agents: readonly AgentInfo[]): string[] {
  const dir = projectLayout(root).agentfsDir;
  if (!existsSync(dir)) return [];
  const known = new Set(agents.map((a) => a.id));
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => /^agent-([0-9a-f]{4,16})\.db$/.exec(entry.name)?.[1])
    .filter((id): id is string => id !== undefined && !known.has(id));
}
