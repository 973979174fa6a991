import { connect } from '../connect.js';
import { type CommandContext, UsageError } from '../context.js';
import { parseDuration } from '../render/time.js';

/** `cairn gc [--older-than 7d]`: deletes for good the overlays of agents rejected at least that long ago. */
export async function gcCommand(ctx: CommandContext, flags: { olderThan?: string }): Promise<number> {
  const age = parseDuration(flags.olderThan ?? '7d');
  if (age === undefined)
    throw new UsageError(`--older-than takes a duration such as 30m, 12h or 7d (got ${JSON.stringify(flags.olderThan)})`);
  const conn = await connect(ctx.root);
  try {
    const outcome = await conn.api.collect(age);
    ctx.out.result(true, { collected: outcome.collected });
    if (outcome.collected.length === 0)
      ctx.out.line(ctx.out.paint.dim(`nothing to collect: no agent was rejected more than ${flags.olderThan ?? '7d'} ago`));
    for (const item of outcome.collected) ctx.out.line(`collected ${ctx.out.paint.bold(item.agentId)} (rejected ${item.retiredAt})`);
    return 0;
  } finally {
    await conn.close();
  }
}
