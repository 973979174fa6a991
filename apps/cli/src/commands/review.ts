import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { projectPathsOf } from '../path-argument.js';
import { renderAccept, renderUndo } from '../render/accept.js';

/** `cairn accept <id> [paths…] [--force] [--partial]`: three-way accept, all or nothing unless `--partial`; exit 1 when a path conflicts. */
export async function acceptCommand(
  ctx: CommandContext,
  id: string,
  paths: readonly string[],
  flags: { force?: boolean; partial?: boolean },
): Promise<number> {
  // paths as git reads them: from the current folder
  const selected = projectPathsOf(ctx.root, paths);
  const conn = await connect(ctx.root);
  try {
    const outcome = await conn.api.accept(id, {
      ...(selected === undefined ? {} : { paths: selected }),
      force: flags.force === true,
      partial: flags.partial === true,
    });
    ctx.out.result(outcome.ok, { applied: outcome.applied, conflicts: outcome.conflicts, agent: outcome.agent });
    const request = { paths, force: flags.force === true, partial: flags.partial === true };
    for (const line of renderAccept(outcome, ctx.out.paint, request)) ctx.out.line(line);
    return outcome.ok ? 0 : 1;
  } finally {
    await conn.close();
  }
}

/** `cairn undo <id> [--force]`: undoes the agent's accepts; exit 1 when a file changed since was left alone. */
export async function undoCommand(ctx: CommandContext, id: string, flags: { force?: boolean }): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const outcome = await conn.api.undo(id, { force: flags.force === true });
    ctx.out.result(outcome.ok, { restored: outcome.restored, conflicts: outcome.conflicts, agent: outcome.agent });
    for (const line of renderUndo(outcome, ctx.out.paint)) ctx.out.line(line);
    return outcome.ok ? 0 : 1;
  } finally {
    await conn.close();
  }
}

/** `cairn reject <id> [--reason TEXT]`: retires the overlay to the ledger (restorable). */
export async function rejectCommand(ctx: CommandContext, id: string, flags: { reason?: string }): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const agent = await conn.api.reject(id, flags.reason);
    ctx.out.result(true, { agent });
    ctx.out.line(
      // the reason the user gave (the ledger records "rejected" when none was)
      `rejected ${ctx.out.paint.bold(id)}${flags.reason?.trim() ? `: ${agent.reason}` : ''} ${ctx.out.paint.dim(`(bring it back with \`cairn restore ${id}\`)`)}`,
    );
    return 0;
  } finally {
    await conn.close();
  }
}

/** `cairn restore <id>`: brings a rejected agent back. */
export async function restoreCommand(ctx: CommandContext, id: string): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const agent = await conn.api.restore(id);
    ctx.out.result(true, { agent });
    ctx.out.line(`restored ${ctx.out.paint.bold(id)}: it is ${agent.state} again`);
    return 0;
  } finally {
    await conn.close();
  }
}

/** `cairn replay <id>`: re-runs the agent from its journal; exit 0 only if it is reproduced. */
export async function replayCommand(ctx: CommandContext, id: string): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const outcome = await conn.api.replay(id);
    ctx.out.result(outcome.ok, { replay: outcome });
    const { paint } = ctx.out;
    if (outcome.ok) {
      ctx.out.line(
        `${paint.green('reproduced')}: ${outcome.runs} run${outcome.runs === 1 ? '' : 's'}, ${outcome.entries} journal entries equal, changes ${outcome.changesHash.slice(0, 19)}…`,
      );
      return 0;
    }
    ctx.out.line(`${paint.red('not reproduced')}: ${outcome.divergence?.reason ?? 'the journals differ'}`);
    if (outcome.divergence?.expected !== undefined)
      ctx.out.line(paint.dim(`  recorded: ${JSON.stringify(outcome.divergence.expected).slice(0, 300)}`));
    if (outcome.divergence?.actual !== undefined)
      ctx.out.line(paint.dim(`  replayed: ${JSON.stringify(outcome.divergence.actual).slice(0, 300)}`));
    return 1;
  } finally {
    await conn.close();
  }
}
