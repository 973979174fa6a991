import { connectDaemon } from '@cairn/daemon';
import { projectLayout, repairProject } from '@cairn/orchestrator';
import { type CommandContext, CommandError } from '../context.js';

/**
 * `cairn repair`: gets a project whose bin.db is damaged or lost working again. The damaged file is kept
 * (moved aside with the time in its name); every agent database without a record gets one rebuilt from
 * what it holds; the command says what it recovered and what it could not.
 */
export async function repairCommand(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const layout = projectLayout(ctx.root);
  const client = await connectDaemon(layout.root, layout.socketPath);
  if (client !== undefined) {
    await client.close();
    throw new CommandError(
      'CAIRN_PROJECT',
      `a daemon runs for ${layout.root}; repair works on the databases it holds open`,
      'stop it with `cairn down`, then run `cairn repair` again',
    );
  }
  const outcome = repairProject(ctx.root);
  out.result(outcome.unrecovered.length === 0, { ...outcome });
  const { paint } = out;
  if (outcome.binDb === 'damaged') out.line(`bin.db was damaged: kept as ${outcome.movedAside}, and a new one made`);
  else if (outcome.binDb === 'missing') out.line('bin.db was missing: a new one was made');
  else out.line('bin.db is sound');
  for (const agent of outcome.recovered)
    out.line(
      `${paint.green('✓')} ${paint.bold(agent.id)} ${agent.state}: ${agent.task} ${paint.dim(`(from ${agent.from === 'bin.db' ? 'the damaged bin.db' : 'its database'})`)}`,
    );
  for (const item of outcome.unrecovered) out.line(`${paint.red('✗')} ${item.path}: ${item.why}`);
  for (const what of outcome.lost) out.line(`${paint.yellow('lost:')} ${what}`);
  const n = outcome.recovered.length;
  out.line(
    n === 0 && outcome.binDb === 'sound' && outcome.unrecovered.length === 0
      ? 'nothing to repair: every agent database has its record'
      : `recovered ${n} agent${n === 1 ? '' : 's'}${outcome.unrecovered.length > 0 ? `; ${outcome.unrecovered.length} could not be fully recovered` : ''}; see them with \`cairn ls\``,
  );
  return outcome.unrecovered.length === 0 ? 0 : 1;
}
