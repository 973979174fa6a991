import type { FileSystem } from '@cairn/agentfs';

/** One entry met by a walk: project-relative path and kind. */
export interface WalkEntry {
  path: string;
  kind: 'file' | 'dir' | 'symlink';
}

/**
 * Visits every entry below `dir` (project-relative, '' for the root) in path order, depth first, without
 * following symbolic links; `skip` prunes a path (and, for a directory, everything below it).
 * Returning false from `visit` stops the walk.
 */
export function walkTree(
  fs: FileSystem,
  dir: string,
  skip: (path: string) => boolean,
  // biome-ignore lint/suspicious/noConfusingVoidType: a visitor that returns nothing means "go on"
  visit: (entry: WalkEntry) => boolean | void,
): void {
  const walk = (at: string): boolean => {
    const entries = fs.readdirPlus('/' + at);
    for (const entry of entries) {
      const path = at === '' ? entry.name : `${at}/${entry.name}`;
      if (skip(path)) continue;
      const kind = entry.stats.isDirectory() ? 'dir' : entry.stats.isSymbolicLink() ? 'symlink' : 'file';
      if (visit({ path, kind }) === false) return false;
      if (kind === 'dir' && !walk(path)) return false;
    }
    return true;
  };
  walk(dir);
}
