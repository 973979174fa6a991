import { decisionCarriedOut, type ReviewOptions } from '@cairn/daemon/client';
import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { type SpawnFlags, spawnOptionsOf } from '../spawn-flags.js';

/** Flags of `cairn review`. */
export interface ReviewFlags extends SpawnFlags {
  as?: string;
  wait?: boolean;
}

/**
 * `cairn review <id> [--as NAME | --code FILE | --model NAME] [--wait]`: starts a reviewer agent on a
 * proposal. It may read the project and the proposal and `decide()`; its decision is written into the
 * agent's thread and carried out under the protocol. Without a daemon it runs here, so the command waits; it
 * exits 1 when the decision was not written or not carried out (refused, failed, stale).
 */
export async function reviewCommand(ctx: CommandContext, id: string, flags: ReviewFlags): Promise<number> {
  const { out } = ctx;
  const options: ReviewOptions = spawnOptionsOf(flags, ctx.root);
  if (flags.as !== undefined) options.as = flags.as;
  const conn = await connect(ctx.root, { runs: true, sync: true });
  try {
    let agent = await conn.api.review(id, options);
    out.line(`reviewer ${out.paint.bold(agent.id)} started on ${out.paint.bold(id)}`);
    if (!conn.daemon || flags.wait === true) agent = await conn.api.wait(agent.id, ['decided', 'failed', 'rejected']);
    else {
      out.result(true, { agent });
      return 0;
    }
    const threads = await conn.api.inbox({ all: true });
    const thread = agent.decision?.thread === undefined ? undefined : threads.find((t) => t.name === agent.decision?.thread);
    const carried = agent.state === 'decided' && thread?.outcome !== undefined && decisionCarriedOut(thread.outcome);
    out.result(carried, { agent, ...(thread === undefined ? {} : { thread }) });
    if (agent.state !== 'decided') {
      out.line(`${out.paint.red('failed')}: ${agent.reason ?? agent.failure?.message ?? 'the reviewer did not decide'}`);
      if (agent.failure?.hint !== undefined) out.line(out.paint.dim(agent.failure.hint));
      return 1;
    }
    out.line(
      `${out.paint.bold(agent.id)} decided ${out.paint.magenta(agent.decision?.decision ?? '?')}${agent.decision?.note ? `: ${agent.decision.note}` : ''}`,
    );
    if (thread !== undefined)
      out.line(
        `  ${thread.executed ?? thread.status}${thread.reason === undefined || (thread.executed ?? '').includes(thread.reason) ? '' : out.paint.dim(` — ${thread.reason}`)}`,
      );
    else if (agent.reason !== undefined) out.line(out.paint.dim(`  ${agent.reason}`));
    // A decision that was not written, or not carried out, is not a success.
    return carried ? 0 : 1;
  } finally {
    await conn.close();
  }
}
