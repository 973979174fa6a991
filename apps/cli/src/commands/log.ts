import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { page } from '../render/diff.js';
import { renderJournal } from '../render/journal.js';

/** `cairn log <id>`: the agent's journal as a table; exit 1 when its chain does not verify. */
export async function logCommand(ctx: CommandContext, id: string, flags: { pager?: boolean }): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const view = await conn.api.journal(id);
    ctx.out.result(view.verified, { journal: view });
    if (!ctx.out.json) page(renderJournal(view, ctx.out.paint).join('\n'), ctx.out, flags.pager !== false);
    return view.verified ? 0 : 1;
  } finally {
    await conn.close();
  }
}
