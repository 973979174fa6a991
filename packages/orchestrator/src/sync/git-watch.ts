import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import { findGitRepository, IgnoreRules, TrackedPaths } from '@cairn/agentfs';

/** A watch of the git files that decide what the mirror holds besides .gitignore. */
export interface GitWatch {
  /**
   * After the index changed: true when it now tracks, or no longer tracks, a path an ignore rule matches (the tree
   * must be imported again). Reads the index once.
   */
  trackingChanged(): boolean;
  close(): void;
}

/**
 * Watches the repository the project lies in for what changes the mirror without touching the tree: its index
 * (a file force-added or no longer tracked, where an ignore rule matches it, comes into the mirror or leaves it)
 * and its `info/exclude` (`onExclude`). `onIndex` is called when the index was written; `trackingChanged` then
 * says whether that matters. An index that changed otherwise (a commit, a `git add` of files the mirror holds
 * anyway, git refreshing its stat data) costs one reading of it.
 */
export function watchGitFiles(
  root: string,
  handlers: { onIndex: () => void; onExclude: () => void; onProblem: (message: string) => void },
): GitWatch {
  const repository = findGitRepository(root);
  if (repository === undefined) return { trackingChanged: () => false, close() {} };
  let tracked = TrackedPaths.of(repository, root).paths();
  const trackingChanged = (): boolean => {
    const now = TrackedPaths.of(repository, root).paths();
    const changed = [...now].filter((path) => !tracked.has(path));
    for (const path of tracked) if (!now.has(path)) changed.push(path);
    tracked = now;
    if (changed.length === 0) return false;
    // what a rule matches, whatever the index says: only there does tracking decide
    const rules = IgnoreRules.forTree(root, [], { tracked: false });
    return changed.some((path) => rules.ignores(path, false));
  };
  const watchers: FSWatcher[] = [];
  const add = (dir: string, name: string, handler: () => void) => {
    try {
      const watcher = watch(dir, (_event, file) => {
        if (file === null || file === name) handler();
      });
      watcher.on('error', (error) => handlers.onProblem(`stopped watching ${join(dir, name)}: ${error.message}`));
      watchers.push(watcher);
    } catch {
      // a repository without that folder: nothing there to follow
    }
  };
  add(repository.gitDir, 'index', handlers.onIndex);
  add(join(repository.commonDir, 'info'), 'exclude', handlers.onExclude);
  return {
    trackingChanged,
    close() {
      for (const watcher of watchers.splice(0)) watcher.close();
    },
  };
}
