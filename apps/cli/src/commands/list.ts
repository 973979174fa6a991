import { AGENT_STATES, type AgentState } from '@cairn/orchestrator/client';
import { connect } from '../connect.js';
import { UsageError, type CommandContext } from '../context.js';
import { renderAgentTable, renderWaiting } from '../render/agents.js';

/** `cairn list-agents` (`ls`): one line per agent. */
export async function listCommand(ctx: CommandContext, flags: { state?: string }): Promise<number> {
  const states = flags.state === undefined ? undefined : flags.state.split(',').map((s) => s.trim());
  for (const state of states ?? [])
    if (!AGENT_STATES.includes(state as AgentState)) throw new UsageError(`unknown state "${state}"`, `one of ${AGENT_STATES.join(', ')}`);
  const conn = await connect(ctx.root);
  try {
    const agents = await conn.api.agents(states === undefined ? {} : { state: states as AgentState[] });
    ctx.out.result(true, { agents });
    for (const line of renderAgentTable(agents, ctx.out.paint)) ctx.out.line(line);
    for (const line of renderWaiting(agents, ctx.out.paint)) ctx.out.line(line);
    return 0;
  } finally {
    await conn.close();
  }
}
