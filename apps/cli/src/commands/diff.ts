import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { projectPathsOf } from '../path-argument.js';
import { renderChecks } from '../render/checks.js';
import { page, paintDiff } from '../render/diff.js';
import { noteUnsynced } from '../render/unsynced.js';

/** `cairn diff <id> [paths…]`: the proposal as a git-style diff, coloured and paged on a terminal; paths as git reads them. */
export async function diffCommand(ctx: CommandContext, id: string, paths: readonly string[], flags: { pager?: boolean }): Promise<number> {
  const selected = projectPathsOf(ctx.root, paths);
  const conn = await connect(ctx.root, { runs: false, sync: 'or-warn' });
  noteUnsynced(ctx.out, conn);
  try {
    const diff = await conn.api.diff(id, selected);
    const checks = await conn.api.checks(id);
    ctx.out.result(true, { agentId: id, diff, checks });
    if (ctx.out.json) return 0;
    const header = checks.length === 0 ? '' : `${renderChecks(checks, ctx.out.paint, '# ').join('\n')}\n`;
    if (diff === '') {
      if (header !== '') ctx.out.line(header.replace(/\n$/, ''));
      ctx.out.line(ctx.out.paint.dim(`agent ${id} proposes no changes${selected !== undefined ? ' there' : ''}`));
      return 0;
    }
    page(header + paintDiff(diff, ctx.out.paint), ctx.out, flags.pager !== false);
    return 0;
  } finally {
    await conn.close();
  }
}
