import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { CairnError } from '@cairn/daemon/client';
import { currentFolder, UsageError } from './context.js';

/**
 * A path the user typed, as the project path it names: relative to the current folder (as git reads paths),
 * or absolute; `''` for the project's folder itself. A path outside the project is `CAIRN_INVALID_PATH` (exit 2). The root is
 * tried as given and as the file system has it, since the current folder always comes without symbolic links.
 */
export function projectPathOf(root: string, given: string): string {
  if (given.trim() === '') throw new UsageError('an empty path was given', 'give paths inside the project, relative to the current folder');
  const absolute = isAbsolute(given) ? resolve(given) : resolve(currentFolder(), given);
  for (const top of new Set([resolve(root), realPath(root)])) {
    const path = relative(top, absolute);
    if (path === '') return '';
    if (path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path)) return path.split(sep).join('/');
  }
  // the API's code for a path outside the project (a usage error: exit 2)
  throw new CairnError('CAIRN_INVALID_PATH', `${given} is outside the project ${root}${isAbsolute(given) ? '' : ` (it is ${absolute})`}`, {
    hint: 'give paths inside the project: relative to the current folder, or absolute',
  });
}

/**
 * The project paths a command's path arguments name (`cairn diff ID paths…`, `cairn accept ID paths…`), or
 * undefined for the whole proposal: when none is given, or one names the project's folder itself.
 */
export function projectPathsOf(root: string, given: readonly string[]): string[] | undefined {
  const paths = given.map((path) => projectPathOf(root, path));
  return paths.length === 0 || paths.includes('') ? undefined : paths;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
