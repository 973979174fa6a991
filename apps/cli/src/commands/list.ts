import { AGENT_STATES, type AgentInfo, type AgentState } from '@cairn/daemon/client';
import { catchUp, connect } from '../connect.js';
import { type CommandContext, UsageError } from '../context.js';
import { renderAgentTable, renderWaiting } from '../render/agents.js';
import { noteUnsynced } from '../render/unsynced.js';

/**
 * `cairn list-agents` (`ls`): one line per agent. Without a daemon it brings Cairn's copy up to date first when
 * a check result it lists could have gone stale (a reviewing agent's, not stale yet): nothing else it shows
 * depends on the working tree, so a project without such results is listed without a walk of the tree.
 */
export async function listCommand(ctx: CommandContext, flags: { state?: string }): Promise<number> {
  const states = flags.state === undefined ? undefined : flags.state.split(',').map((s) => s.trim());
  for (const state of states ?? [])
    if (!AGENT_STATES.includes(state as AgentState)) throw new UsageError(`unknown state "${state}"`, `one of ${AGENT_STATES.join(', ')}`);
  const conn = await connect(ctx.root, { runs: false });
  try {
    const list = () => conn.api.agents(states === undefined ? {} : { state: states as AgentState[] });
    let agents = await list();
    if (agents.some(mayGoStale)) {
      await catchUp(conn);
      noteUnsynced(ctx.out, conn);
      agents = await list();
    }
    ctx.out.result(true, { agents });
    for (const line of renderAgentTable(agents, ctx.out.paint)) ctx.out.line(line);
    for (const line of renderWaiting(agents, ctx.out.paint)) ctx.out.line(line);
    return 0;
  } finally {
    await conn.close();
  }
}

function mayGoStale(agent: AgentInfo): boolean {
  return agent.state === 'reviewing' && (agent.checks ?? []).some((check) => check.status !== 'stale');
}
