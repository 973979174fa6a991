import { createInterface } from 'node:readline/promises';
import { type CheckResultInfo, projectLayout } from '@cairn/daemon/client';
import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { renderCheckLine, renderChecks } from '../render/checks.js';
import { page } from '../render/diff.js';
import { noteUnsynced } from '../render/unsynced.js';

/**
 * `cairn checks [<id> [name]] [--run]`: without an id, every agent's checks; with one, its checks, one line
 * each with where it ran and why; with a name, that check's output (paged). `--run` runs them now.
 * Exit 1 when a check shown did not pass.
 */
export async function checksCommand(
  ctx: CommandContext,
  id: string | undefined,
  name: string | undefined,
  flags: { run?: boolean; pager?: boolean },
): Promise<number> {
  const { out } = ctx;
  const conn = await connect(ctx.root, { runs: false, sync: 'or-warn' });
  noteUnsynced(ctx.out, conn);
  try {
    if (id === undefined) {
      const agents = (await conn.api.agents()).filter((agent) => agent.checks !== undefined && agent.checks.length > 0);
      out.result(true, { agents: agents.map((agent) => ({ id: agent.id, state: agent.state, checks: agent.checks })) });
      if (agents.length === 0) out.line(out.paint.dim('no checks have run — declare them in .cairn/config.json (`cairn checks suggest`)'));
      for (const agent of agents) {
        out.line(`${out.paint.bold(agent.id)}  ${agent.state}  ${agent.task}`);
        for (const line of renderChecks(agent.checks ?? [], out.paint, '  ')) out.line(line);
      }
      return 0;
    }
    if (flags.run === true) await conn.api.runChecks(id, name === undefined ? undefined : [name]);
    if (name !== undefined) {
      const { result, output } = await conn.api.checkOutput(id, name);
      out.result(result.status === 'passed', { agentId: id, check: result, output });
      if (out.json) return result.status === 'passed' ? 0 : 1;
      const stale =
        result.status === 'stale'
          ? [`stale: ran on an older working tree or proposal; \`cairn checks ${id} ${name} --run\` runs it again`]
          : [];
      const header = [renderCheckLine(result, out.paint), ...[...stale, ...explain(result)].map((line) => out.paint.dim(line))];
      page(`${header.join('\n')}\n${output}`, out, flags.pager !== false);
      return result.status === 'passed' ? 0 : 1;
    }
    const checks = await conn.api.checks(id);
    const passed = checks.every((check) => check.status === 'passed');
    out.result(passed, { agentId: id, checks });
    if (checks.length === 0) out.line(out.paint.dim(`no checks have run on ${id} — \`cairn checks ${id} --run\` runs the declared ones`));
    for (const check of checks) {
      out.line(renderCheckLine(check, out.paint, Math.max(4, ...checks.map((c) => c.name.length))));
      for (const line of explain(check)) out.line(out.paint.dim(`    ${line}`));
    }
    const stale = checks.filter((check) => check.status === 'stale').length;
    if (stale > 0)
      out.line(
        out.paint.dim(
          `stale: ran on an older working tree or proposal; \`cairn checks ${id} --run\` runs ${stale === 1 ? 'it' : 'them'} again`,
        ),
      );
    return passed ? 0 : 1;
  } finally {
    await conn.close();
  }
}

/** Where a check ran and why there (and what went wrong, for an error). */
function explain(check: CheckResultInfo): string[] {
  const lines: string[] = [];
  if (check.why !== undefined && check.status !== 'pending') lines.push(`${check.view ?? 'view'}: ${check.why}`);
  return lines;
}

/** `cairn checks suggest [--yes]`: checks from the project's scripts, written to .cairn/config.json once confirmed. */
export async function checksSuggestCommand(ctx: CommandContext, flags: { yes?: boolean }): Promise<number> {
  const { out } = ctx;
  const { addChecksToConfig, loadCheckSettings, suggestChecks } = await import('@cairn/checks');
  const configPath = projectLayout(ctx.root).configPath;
  const declared = new Set(loadCheckSettings(configPath).map((check) => check.name));
  const suggested = suggestChecks(ctx.root).filter((check) => !declared.has(check.name));
  if (suggested.length === 0) {
    out.result(true, { suggested: [], written: [] });
    out.line(
      declared.size > 0
        ? 'every check the project declares is in .cairn/config.json already'
        : 'found no tests, linters or type checks to suggest',
    );
    return 0;
  }
  const width = Math.max(...suggested.map((check) => check.name.length));
  if (!out.json) {
    out.line('checks found in the project:');
    for (const check of suggested)
      out.line(
        `  ${check.name.padEnd(width)}  ${check.command.join(' ')}  ${out.paint.dim(`(${check.from}${check.auto ? ', automatic' : ''})`)}`,
      );
  }
  let write = flags.yes === true;
  if (!write && out.tty && !out.json && process.stdin.isTTY === true) {
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    try {
      write = /^y(es)?$/i.test((await prompt.question('write them to .cairn/config.json? [y/N] ')).trim());
    } finally {
      prompt.close();
    }
  }
  const written = write ? addChecksToConfig(configPath, suggested) : [];
  out.result(true, { suggested: suggested.map(({ from: _from, ...check }) => check), written });
  if (write) out.line(`wrote ${written.join(', ')} to .cairn/config.json`);
  else out.line(out.paint.dim('nothing written — run `cairn checks suggest --yes` to write them'));
  return 0;
}
