import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { renderAgentDetail } from '../render/agents.js';

/** `cairn status <id>`: the agent in full, with its recent events. */
export async function statusCommand(ctx: CommandContext, id: string): Promise<number> {
  const conn = await connect(ctx.root);
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
