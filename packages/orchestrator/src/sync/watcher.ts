import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { IgnoreRules, importPath, importTree } from '@cairn/agentfs';
import type { SyncSummary } from '@cairn/api';
import type { ProjectCore } from '../agents/project-core.js';
import { FolderWatches } from './folder-watches.js';
import { type GitWatch, watchGitFiles } from './git-watch.js';
import { syncProject } from './sync.js';

/** A running watcher of the working tree. */
export interface ProjectWatcher {
  /** Resolves, with what the first import did, once the tree is imported and each of its folders watched. */
  ready: Promise<SyncSummary>;
  close(): Promise<void>;
}

/**
 * Imports the working tree and then applies each human edit to stable.db soon after the save. Each folder of
 * the mirror is watched on its own (`fs.watch`, one inotify watch a folder on Linux), set up by the import just
 * before it lists the folder, so nothing changed during the import is missed and the tree is walked once; folders
 * .gitignore leaves out, `.git`, `.agentfs` and `.cairn` are never watched. A short debounce gathers the burst an
 * editor makes (Neovim and VS Code write a temp file and rename it over the target), then every gathered path is
 * imported at once; a new folder is imported with everything in it, and watched. A changed `.gitignore`
 * re-imports the whole tree, since it can hide or reveal any file; so does a change of git's `info/exclude`, or of
 * its index where it starts or stops tracking a file an ignore rule matches (`watchGitFiles`).
 */
export function watchProject(
  core: Pick<ProjectCore, 'clock' | 'emit' | 'layout' | 'lifecycle' | 'stable' | 'store'>,
  options: { debounceMs?: number } = {},
): ProjectWatcher {
  const root = core.layout.root;
  const debounceMs = options.debounceMs ?? 15;
  const rules = IgnoreRules.forTree(root);
  const pending = new Set<string>();
  const stopImport = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let importing = true;
  let closed = false;
  let fullSync = false;
  let indexChanged = false;
  let git: GitWatch | undefined;
  const report = (message: string) => core.emit({ type: 'error', time: new Date(core.clock()).toISOString(), code: 'sync', message });
  const schedule = () => {
    if (!importing && !closed) timer ??= setTimeout(flush, debounceMs);
  };
  const folders = new FolderWatches(
    root,
    (rel) => {
      // a changed .gitignore changes what is imported anywhere below it; a name that is not UTF-8 reaches the watch
      // decoded (U+FFFD in place of its bytes), so only a walk that lists it as bytes can record it as skipped
      if (rel === '.gitignore' || rel.endsWith('/.gitignore') || rel.includes('\uFFFD')) fullSync = true;
      pending.add(rel);
      schedule();
    },
    report,
  );

  /** Imports one edited path; true when stable.db changed. */
  const applyEdit = (path: string): boolean => {
    let folder: number | undefined;
    try {
      const stats = lstatSync(join(root, path));
      folder = stats.isDirectory() ? stats.ino : undefined;
    } catch {
      folder = undefined;
    }
    const watched = folders.inoOf(path);
    if (watched !== undefined && watched !== folder) folders.closeBelow(path);
    const fresh = folder !== undefined && watched !== folder;
    const what = importPath(
      core.stable,
      root,
      path,
      fresh ? { rules, subtree: true, onDirectory: (rel, ino) => folders.add(rel, ino) } : { rules },
    );
    return what !== 'unchanged' && what !== 'ignored' && what !== 'skipped';
  };

  /** Imports the whole tree again (a .gitignore changed) and watches exactly the folders of the mirror now. */
  const reimport = (): boolean => {
    rules.clear();
    const listed = new Set<string>();
    const summary = importTree(core.stable, root, {
      onDirectory: (rel, ino) => {
        listed.add(rel);
        folders.add(rel, ino);
      },
    });
    folders.retain(listed);
    return summary.added + summary.updated + summary.removed > 0;
  };

  const flush = () => {
    timer = undefined;
    const paths = [...pending].sort();
    pending.clear();
    if (indexChanged) {
      indexChanged = false;
      try {
        if (git?.trackingChanged() === true) fullSync = true;
      } catch (error) {
        report(`could not read the git index: ${(error as Error).message}`);
      }
    }
    if (paths.length === 0 && !fullSync) return;
    const changed: string[] = [];
    try {
      if (fullSync) {
        fullSync = false;
        if (reimport()) changed.push(...paths);
      } else {
        core.stable.transaction(() => {
          for (const path of paths) if (applyEdit(path)) changed.push(path);
        });
      }
    } catch (error) {
      report(`could not apply an edit to stable.db: ${(error as Error).message}`);
      return;
    }
    if (changed.length > 0) core.emit({ type: 'sync.changed', time: new Date(core.clock()).toISOString(), paths: changed });
  };

  const ready = syncProject(core, { onDirectory: (rel, ino) => folders.add(rel, ino), signal: stopImport.signal }).then(
    (summary) => {
      importing = false;
      if (!closed)
        git = watchGitFiles(root, {
          onIndex: () => {
            indexChanged = true;
            schedule();
          },
          onExclude: () => {
            fullSync = true;
            schedule();
          },
          onProblem: report,
        });
      if (pending.size > 0 || fullSync) schedule();
      return summary;
    },
    (error: unknown) => {
      closed = true;
      folders.closeAll();
      throw error;
    },
  );
  return {
    ready,
    async close() {
      if (closed) return;
      closed = true;
      stopImport.abort();
      await ready.catch(() => undefined);
      if (timer !== undefined) {
        clearTimeout(timer);
        flush();
      }
      folders.closeAll();
      git?.close();
    },
  };
}
