import { existsSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { cairnHomeDir, projectLayout } from '@cairn/orchestrator/client';
import { CommandError } from './context.js';
import { unwritable } from './project-root.js';
import { describeSystemError } from './system-error.js';

/**
 * Checks, before any work, that `$CAIRN_HOME` (or `~/.cairn`) can hold the project's previews, state and
 * socket: a folder this user can write, or one that can be made where nothing is in the way. With `create`
 * it is made; without, nothing is created.
 */
export function checkCairnHome(root: string, options: { create: boolean }, env: NodeJS.ProcessEnv = process.env): void {
  const configured = env.CAIRN_HOME !== undefined && env.CAIRN_HOME !== '';
  const home = cairnHomeDir(env);
  const label = configured ? `CAIRN_HOME ${home}` : `the Cairn home ${home} (CAIRN_HOME is not set)`;
  if (!configured) {
    const user = homedir();
    if (!existsSync(user))
      throw new CommandError(
        'CAIRN_HOME',
        `${label} cannot be made: the home folder ${user} does not exist`,
        'set CAIRN_HOME to a folder you can write (or HOME to your home folder)',
      );
  }
  checkFolder(home, label);
  if (options.create) {
    try {
      mkdirSync(home, { recursive: true });
    } catch (error) {
      throw new CommandError(
        'CAIRN_HOME',
        `${label} cannot be made: ${describeSystemError(error)?.message ?? (error as Error).message}`,
        'set CAIRN_HOME to a folder you can write',
      );
    }
  }
  const layout = projectLayout(root, home);
  for (const folder of [layout.home, layout.previewsDir, layout.stateDir, layout.signalsDir, layout.workspacesDir])
    checkFolder(folder, `${folder} (under ${label})`);
}

/** Refuses a folder (or the place it would be made) that is a file, sits under a file, or cannot be written. */
function checkFolder(folder: string, label: string): void {
  let existing = folder;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!isFolder(existing)) {
    const where = existing === folder ? 'a file is in the way' : `a file is in the way: ${existing}`;
    throw new CommandError(
      'CAIRN_HOME',
      `${label} is not a writable folder (${where})`,
      `set CAIRN_HOME to a folder you can write, or remove ${existing}`,
    );
  }
  const why = unwritable(existing);
  if (why !== undefined) {
    const where = existing === folder ? why : `${existing}: ${why}`;
    throw new CommandError(
      'CAIRN_HOME',
      `${label} is not a writable folder (${where})`,
      `set CAIRN_HOME to a folder you can write, or give yourself write access to ${existing}`,
    );
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
