import { tmpdir } from 'node:os';
import { checkProjectSettings, projectLayout, SETTINGS_SECTIONS } from '@cairn/daemon/client';
import { checkCairnHome, settleCairnHome } from './cairn-home.js';
import { type CommandContext, type CommonOptions, leaveDeletedFolder } from './context.js';
import { createOutput, type Output } from './output.js';
import { type AgentWrites, checkProject, findProjectRoot, onReadOnlyFileSystem, type ProjectUse } from './project-root.js';
import { reportError } from './report-error.js';

/** A command's function: its context first, then what the command line gave it. */
export type Action = (ctx: CommandContext, ...args: never[]) => Promise<number>;

/**
 * Runs one command: finds and checks its project (and `$CAIRN_HOME`) before any work, runs it, and turns
 * what it threw into the one-line error and exit code the CLI contract gives.
 */
export async function runCommand(
  action: Action,
  use: ProjectUse | 'none',
  options: CommonOptions,
  args: unknown[],
  writes: AgentWrites = 'all',
): Promise<number> {
  const out = createOutput({ json: options.json === true, debug: options.debug === true });
  try {
    const ctx: CommandContext = { out, root: contextRoot(use, options, writes) };
    // commands that make agents or change the working tree use the project's settings: all are checked first
    if (use === 'create' || typeof writes === 'object') noteUnknownSettings(out, ctx.root);
    if (use === 'read' && onReadOnlyFileSystem(ctx.root))
      out.note(`note: ${ctx.root} is on a read-only file system: Cairn shows it as it last saw it, without bringing it up to date`);
    return await (action as (ctx: CommandContext, ...rest: unknown[]) => Promise<number>)(ctx, ...args);
  } catch (error) {
    return reportError(out, error);
  }
}

/** The project a command works on, checked (and `$CAIRN_HOME` with it) before any work. */
function contextRoot(use: ProjectUse | 'none', options: CommonOptions, writes: AgentWrites): string {
  settleCairnHome();
  if (use === 'none') {
    leaveDeletedFolder(tmpdir());
    return '';
  }
  const place = findProjectRoot(options.project);
  leaveDeletedFolder(place.root);
  checkProject(place, use, writes);
  if (use !== 'any') checkCairnHome(place.root, { create: use === 'create', readOnlyAllowed: use === 'read' });
  return place.root;
}

/** Checks `.cairn/config.json` whole (a wrong entry is refused) and warns of top-level keys Cairn does not know. */
function noteUnknownSettings(out: Output, root: string): void {
  const { unknown } = checkProjectSettings(projectLayout(root));
  for (const key of unknown)
    out.note(`warning: .cairn/config.json: "${key}" is not a setting Cairn knows (${SETTINGS_SECTIONS.join(', ')}); it is ignored`);
}

export { reportError };
