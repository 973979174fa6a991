import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { cairnHomeDir, projectLayout } from '@cairn/daemon/client';
import { CommandError, currentFolder } from './context.js';
import { unwritable } from './project-root.js';
import { describeSystemError } from './system-error.js';

/**
 * Checks, before any work, that `$CAIRN_HOME` (or `~/.cairn`) can hold the project's previews, state and
 * socket: a folder this user can write, or one that can be made where nothing is in the way. With `create`
 * it is made; without, nothing is created.
 */
export function checkCairnHome(
  root: string,
  options: { create: boolean; readOnlyAllowed?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): void {
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
  checkFolder(home, label, options.readOnlyAllowed);
  const project = realPath(root);
  const inside = realPath(home);
  if (inside === project || inside.startsWith(project + sep))
    throw new CommandError(
      'CAIRN_HOME',
      `${label} is inside the project ${root}: Cairn would import its own previews, state and socket as project files`,
      'set CAIRN_HOME to a folder outside the project (or unset it: the default is ~/.cairn)',
    );
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
    checkFolder(folder, `${folder} (under ${label})`, options.readOnlyAllowed);
}

/**
 * Makes a relative `CAIRN_HOME` absolute, from the folder the command was started in, before anything reads
 * it: the processes Cairn starts (a daemon, the Neovim bridge's) then find the same home wherever they run.
 */
export function settleCairnHome(env: NodeJS.ProcessEnv = process.env): void {
  const configured = env.CAIRN_HOME;
  if (configured === undefined || configured === '' || isAbsolute(configured)) return;
  env.CAIRN_HOME = resolve(currentFolder(), configured);
}

/** The path with its symbolic links resolved, as far as it exists. */
function realPath(path: string): string {
  let existing = path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    return resolve(realpathSync(existing), path.slice(existing.length).replace(/^\//, ''));
  } catch {
    return path;
  }
}

/** Refuses a folder (or the place it would be made) that is a file, sits under a file, or cannot be written (but for a read-only file system, when `readOnlyAllowed`). */
function checkFolder(folder: string, label: string, readOnlyAllowed = false): void {
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
  // a command that only reads needs nothing written there
  if (why === 'the file system is read-only' && readOnlyAllowed) return;
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
