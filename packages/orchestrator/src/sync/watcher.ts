import { relative, sep } from 'node:path';
import type { Stats } from 'node:fs';
import { importTree } from '@cairn/agentfs';
import { IgnoreRules, importPath, isProtectedName } from '@cairn/agentfs/internal';
import { watch } from 'chokidar';
import type { ProjectCore } from '../agents/project-core.js';

/** A running watcher of the working tree. */
export interface ProjectWatcher {
  /** Resolves once the watcher has scanned the tree and is watching. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Applies each human edit to stable.db soon after the save: chokidar reports changes, a short debounce
 * gathers the burst an editor makes (Neovim and VS Code write a temp file and rename it over the target),
 * then every gathered path is imported at once. A changed `.gitignore` re-imports the whole tree, since it
 * can hide or reveal any file. `.git`, `.agentfs` and `.cairn` are never watched.
 */
export function watchProject(core: ProjectCore, options: { debounceMs?: number } = {}): ProjectWatcher {
  const root = core.layout.root;
  const debounceMs = options.debounceMs ?? 15;
  const rules = new Map<string, IgnoreRules>();
  const rulesFor = (dir: string): IgnoreRules => {
    let found = rules.get(dir);
    if (found === undefined) {
      const slash = dir.lastIndexOf('/');
      found = dir === '' ? IgnoreRules.forRoot(root) : rulesFor(slash < 0 ? '' : dir.slice(0, slash)).enter(root, dir);
      rules.set(dir, found);
    }
    return found;
  };
  const ignored = (path: string, stats?: Stats): boolean => {
    const rel = relative(root, path).split(sep).join('/');
    if (rel === '' || rel.startsWith('..')) return false;
    if (rel.split('/').some(isProtectedName)) return true;
    if (stats === undefined) return false;
    const slash = rel.lastIndexOf('/');
    return rulesFor(slash < 0 ? '' : rel.slice(0, slash)).ignores(rel, stats.isDirectory());
  };
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let fullSync = false;
  const flush = () => {
    timer = undefined;
    const paths = [...pending].sort();
    pending.clear();
    if (paths.length === 0 && !fullSync) return;
    const changed: string[] = [];
    try {
      if (fullSync) {
        fullSync = false;
        rules.clear();
        const summary = importTree(core.stable, root);
        if (summary.added + summary.updated + summary.removed > 0) changed.push(...paths);
      } else {
        core.stable.transaction(() => {
          for (const path of paths) {
            const what = importPath(core.stable, root, path);
            if (what !== 'unchanged' && what !== 'ignored' && what !== 'skipped') changed.push(path);
          }
        });
      }
    } catch (error) {
      core.emit({
        type: 'error',
        time: new Date(core.clock()).toISOString(),
        code: 'sync',
        message: `could not apply an edit to stable.db: ${(error as Error).message}`,
      });
      return;
    }
    if (changed.length > 0) core.emit({ type: 'sync.changed', time: new Date(core.clock()).toISOString(), paths: changed });
  };
  const watcher = watch(root, { ignoreInitial: true, ignored, followSymlinks: false, persistent: true });
  watcher.on('all', (_event, path) => {
    const rel = relative(root, path).split(sep).join('/');
    if (rel === '' || rel.startsWith('..')) return;
    if (rel === '.gitignore' || rel.endsWith('/.gitignore')) fullSync = true;
    pending.add(rel);
    timer ??= setTimeout(flush, debounceMs);
  });
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      if (timer !== undefined) {
        clearTimeout(timer);
        flush();
      }
      await watcher.close();
    },
  };
}
