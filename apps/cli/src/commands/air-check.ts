import { existsSync } from 'node:fs';
import { loadProjectGovernance, PROTECTED_READ_PATTERNS, PROTECTED_WRITE_PATTERNS } from '@cairn/governance';
import { projectLayout } from '@cairn/workspace/layout';
import type { CommandContext } from '../context.js';

/** `cairn air check`: validates `.cairn/manifest.air.json`; exit 1 with every problem, placed, when it is invalid. */
export async function airCheckCommand(ctx: CommandContext): Promise<number> {
  const layout = projectLayout(ctx.root);
  const { out } = ctx;
  const present = existsSync(layout.manifestPath);
  const loaded = loadProjectGovernance(layout.settingsDir, layout.manifestPath);
  if (!loaded.ok) {
    out.result(false, { problems: loaded.problems });
    out.line(
      `${out.paint.red('invalid')}: ${loaded.problems.length} problem${loaded.problems.length === 1 ? '' : 's'} in ${layout.settingsDir}`,
    );
    for (const problem of loaded.problems)
      out.line(
        `  ${problem.file}${problem.path ? ` ${out.paint.dim(problem.path)}` : ''}: ${problem.message} ${out.paint.dim(`(${problem.code})`)}`,
      );
    out.line(out.paint.dim('  until it is fixed, every spawn is refused'));
    return 1;
  }
  const governance = loaded.governance;
  out.result(true, {
    manifest: present,
    warnings: governance?.warnings ?? [],
    denyRules: governance?.denyRules.length ?? 0,
    protected: { read: PROTECTED_READ_PATTERNS, write: PROTECTED_WRITE_PATTERNS },
  });
  out.line(
    present
      ? `${out.paint.green('valid')}: ${layout.manifestPath}`
      : `no ${layout.manifestPath}: agents run under Cairn's default governance`,
  );
  for (const warning of governance?.warnings ?? []) out.line(`  ${out.paint.yellow('warning')}: ${warning}`);
  if (governance !== undefined)
    out.line(
      `  ${governance.denyRules.length} deny rule${governance.denyRules.length === 1 ? '' : 's'} and ${governance.grants.length} narrowed grant${governance.grants.length === 1 ? '' : 's'} on top of the defaults`,
    );
  out.line(`  never readable by agents: ${PROTECTED_READ_PATTERNS.join(' ')}`);
  out.line(`  never writable by agents: ${PROTECTED_WRITE_PATTERNS.join(' ')}`);
  return 0;
}
