import { lstatSync, type Stats as DiskStats } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AgentFS } from './agentfs.js';
import { beginBulkCommits } from './bulk-commits.js';
import { IgnoreRules, isProtectedPath, TreeIgnoreRules } from './ignore-rules.js';
import { MirrorRows } from './mirror-rows.js';
import { MirrorWriter } from './mirror-writer.js';
import { kindOfMode } from './mode.js';
import { normalizePath, toRelative } from './path.js';
import type { ImportSummary } from './import-summary.js';
import { comparePaths, SkippedEntries, type SkippedEntry, unreadableReason } from './skipped-entries.js';
import { compareEntry, mirrorDir, mirrorRoot, scanTree, type MirrorDir, type PlannedEntry, type TreeScan } from './tree-scan.js';

/**
 * Progress of an import: the scan counts the entries it found; the import phase counts entries done (those the
 * store already matched first) out of all found, and the bytes read.
 */
export interface ImportProgress {
  phase: 'scan' | 'import' | 'prune';
  done: number;
  total: number;
  bytes: number;
}

/** Options for `importTree`. */
export interface ImportOptions {
  /** Extra gitignore-style patterns. */
  ignore?: readonly string[];
  onProgress?: (progress: ImportProgress) => void;
  /** Called with each directory of the mirror (project-relative, '' for the root) just before it is listed. */
  onDirectory?: (rel: string) => void;
  /** How many entries per transaction (default 2000); progress is reported after each. */
  batchSize?: number;
  /** The wall clock file times are compared with (the racy-timestamp rule of the stat cache); `Date.now` by default. */
  clock?: () => number;
  /** Stops `importTreeAsync` between two batches (what is committed stays, the rest waits for the next import). */
  signal?: AbortSignal;
}

/** The most bytes one batch reads before it commits. */
const BATCH_BYTES = 32 * 1024 * 1024;

/**
 * Makes a store mirror a directory tree: honours .gitignore (nested, as git does) and never takes `.git` or
 * `.agentfs`; removes from the store what is gone from disk. Modes and modification times are kept.
 *
 * The tree is walked once, each directory's listing compared with the store's entries of that directory. A
 * file whose size, mtime and mode match the store, and whose device, inode and ctime match the stat cache
 * (`cairn_stat_cache`), is not read, unless it changed too shortly before it was last compared (git's
 * racy-timestamp rule); every other file is read, and written only when its bytes differ.
 *
 * An entry that cannot be read (permissions, a folder that cannot be listed) or whose name is not UTF-8 is
 * left out, as if it were ignored, and listed in `skipped` (and in the store's `cairn_skipped` table): Cairn's
 * paths are text everywhere (tool arguments, journals, diffs), so a name that is not text is never offered
 * to an agent, and nothing skipped is ever written or deleted on disk.
 */
export function importTree(store: AgentFS, root: string, options: ImportOptions = {}): ImportSummary {
  const summary = emptySummary();
  const steps = runImport(store, root, options, summary);
  try {
    while (steps.next().done !== true);
  } finally {
    steps.return();
  }
  return summary;
}

/** `importTree`, letting other work run between its batches (a daemon keeps serving, a progress bar keeps drawing). */
export async function importTreeAsync(store: AgentFS, root: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const summary = emptySummary();
  const steps = runImport(store, root, options, summary);
  try {
    while (steps.next().done !== true) {
      await nextTurn();
      options.signal?.throwIfAborted();
    }
  } finally {
    // an abort leaves the walk suspended: this runs its `finally`, which restores the connection's settings
    steps.return();
  }
  return summary;
}

function* runImport(store: AgentFS, root: string, options: ImportOptions, summary: ImportSummary): Generator<void, void> {
  const checkedAt = (options.clock ?? Date.now)();
  const onProgress = options.onProgress;
  const rules = IgnoreRules.forRoot(root, options.ignore ?? []);
  const walk = scanTree(root, mirrorRoot(), rules, new MirrorRows(store.db).readAll(), options.onDirectory);
  let step = walk.next();
  for (; step.done !== true; step = walk.next()) {
    onProgress?.({ phase: 'scan', done: step.value, total: step.value, bytes: 0 });
    yield;
  }
  const scan = step.value;
  const total = scan.files + scan.dirs;
  onProgress?.({ phase: 'scan', done: total, total, bytes: 0 });
  const writer = new MirrorWriter(store, root, summary, checkedAt);
  let done = total - scan.planned.length;
  onProgress?.({ phase: 'import', done, total, bytes: 0 });
  const batchSize = Math.max(1, options.batchSize ?? 2000);
  // one batch is one commit either way: only an import of several writes in bulk
  const endBulk = scan.planned.length > batchSize && !store.db.inTransaction ? beginBulkCommits(store.db) : undefined;
  try {
    for (let start = 0; start < scan.planned.length; ) {
      const end = writer.batch(() => applyBatch(writer, scan, start, batchSize));
      done += end - start;
      start = end;
      onProgress?.({ phase: 'import', done, total, bytes: summary.bytes });
      yield;
    }
    finishImport(store, writer, scan, summary);
  } finally {
    endBulk?.();
  }
  onProgress?.({ phase: 'prune', done: summary.removed, total: summary.removed, bytes: summary.bytes });
}

/** Applies planned entries from `start` until a batch is full; returns where the next batch starts. */
function applyBatch(writer: MirrorWriter, scan: TreeScan, start: number, batchSize: number): number {
  let index = start;
  let bytes = 0;
  while (index < scan.planned.length && index - start < batchSize && bytes < BATCH_BYTES) {
    const entry = scan.planned[index++]!;
    if (!writer.apply(entry)) unread(scan, entry);
    else if (entry.kind === 'file') bytes += entry.stats.size;
  }
  return index;
}

/** Counts an entry that could not be read out of the mirror, and out of the store if it was there. */
function unread(scan: TreeScan, entry: PlannedEntry): void {
  scan.files--;
  scan.stale.push({ rel: entry.rel, gone: false });
}

/** Removes what is stale, settles the counts and records what was skipped. */
function finishImport(store: AgentFS, writer: MirrorWriter, scan: TreeScan, summary: ImportSummary): void {
  summary.files = scan.files;
  summary.dirs = scan.dirs;
  summary.unchanged += scan.unchanged;
  summary.skipped.push(...scan.skipped);
  summary.skipped.sort((a, b) => comparePaths(a.path, b.path));
  const record = () => new SkippedEntries(store.db).replace(summary.skipped, store.clock());
  if (scan.stale.length === 0) {
    // nothing to remove: a transaction that writes only if the skipped list changed
    store.transaction(record);
    return;
  }
  writer.batch(() => {
    const removed = summary.removed;
    writer.removeStale(scan.stale);
    if (summary.removed > removed) writer.forgetRemoved();
    record();
  });
}

/** What `importPath` did to one path. */
export type ImportPathResult = 'added' | 'updated' | 'unchanged' | 'removed' | 'ignored' | 'skipped';

/** Options of `importPath`. */
export interface ImportPathOptions {
  /** Import everything below a directory too (what an accept needs before it replaces a folder). */
  subtree?: boolean;
  /** The tree's ignore rules, kept by a caller that imports many paths (the watcher); read afresh otherwise. */
  rules?: TreeIgnoreRules;
  /** Called with each directory a subtree import lists, just before it is listed. */
  onDirectory?: (rel: string) => void;
}

/**
 * Brings one project-relative path of the store in line with disk (the watcher's unit of work), under the
 * same rules as `importTree`: a protected name or a path .gitignore ignores is never imported (and is taken
 * out of the store if it was there: `ignored`); one that cannot be read is taken out and recorded
 * (`skipped`). A directory is imported as an entry, its contents being paths of their own, unless `subtree`
 * asks for everything below it too. A file the stat cache vouches for is not read.
 */
export function importPath(store: AgentFS, root: string, rel: string, options: ImportPathOptions = {}): ImportPathResult {
  const clean = toRelative(normalizePath('/' + rel.replace(/^\/+/, ''), 'import'));
  const path = '/' + clean;
  if (clean === '') return 'unchanged';
  const checkedAt = Date.now();
  const dir = parentOnDisk(root, clean);
  let stats: DiskStats | undefined;
  const skipped: SkippedEntry[] = [];
  if (dir !== undefined) {
    try {
      stats = lstatSync(join(root, clean), { throwIfNoEntry: false });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTDIR') skipped.push({ path: clean, reason: unreadableReason(error) });
    }
  }
  const rules = options.rules ?? new TreeIgnoreRules(root);
  if (isProtectedPath(clean) || rules.ignores(clean, stats?.isDirectory() ?? false)) {
    if (!isProtectedPath(clean) && store.fs.locate(path, false) !== undefined)
      store.transaction(() => store.fs.rm(path, { recursive: true }));
    return 'ignored';
  }
  if (stats !== undefined && !stats.isDirectory() && !stats.isFile() && !stats.isSymbolicLink()) return 'ignored';
  const summary = emptySummary();
  const writer = new MirrorWriter(store, root, summary, checkedAt);
  writer.batch(() => {
    let imported = false;
    if (dir !== undefined && stats !== undefined) {
      const name = clean.slice(clean.lastIndexOf('/') + 1);
      const rows = new MirrorRows(store.db);
      const parentIno = lookupDir(store, dir);
      const found = compareEntry(dir, name, stats, parentIno === undefined ? undefined : rows.at(parentIno, name))!;
      imported = found.planned === undefined || writer.apply(found.planned);
      if (found.planned === undefined) summary.unchanged++;
      if (imported && options.subtree === true && found.self !== undefined)
        imported = importBelow(store, root, writer, summary, found.self, rules, options);
    }
    if (!imported && store.fs.locate(path, false) !== undefined) writer.remove(clean);
    new SkippedEntries(store.db).update(clean, [...skipped, ...summary.skipped], store.clock());
  });
  if (skipped.length > 0 || summary.skipped.some((s) => s.path === clean)) return 'skipped';
  if (summary.removed > 0) return 'removed';
  if (summary.added > 0) return 'added';
  return summary.updated > 0 ? 'updated' : 'unchanged';
}

/** Imports everything below a directory just imported; false when the directory itself cannot be listed. */
function importBelow(
  store: AgentFS,
  root: string,
  writer: MirrorWriter,
  summary: ImportSummary,
  self: MirrorDir,
  rules: TreeIgnoreRules,
  options: ImportPathOptions,
): boolean {
  const walk = scanTree(root, self, rules.at(self.rel), new MirrorRows(store.db), options.onDirectory);
  let step = walk.next();
  while (step.done !== true) step = walk.next();
  const scan = step.value;
  summary.skipped.push(...scan.skipped);
  if (scan.skipped.some((entry) => entry.path === self.rel)) return false;
  for (const entry of scan.planned) if (!writer.apply(entry)) unread(scan, entry);
  writer.removeStale(scan.stale);
  return true;
}

/**
 * The walk's directory chain from the root to the parent of `rel`, each confirmed a directory on disk; undefined
 * when a folder on the way is a symbolic link or not a folder (the mirror holds the link itself, never what lies
 * behind it, so the path does not exist there) or is gone.
 */
function parentOnDisk(root: string, rel: string): MirrorDir | undefined {
  const parts = rel.split('/');
  let dir = mirrorRoot();
  for (let i = 0; i < parts.length - 1; i++) {
    let stats: DiskStats | undefined;
    try {
      stats = lstatSync(join(root, ...parts.slice(0, i + 1)), { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (stats === undefined || !stats.isDirectory()) return undefined;
    dir = mirrorDir(dir, parts[i]!, stats.mode & 0o7777);
  }
  return dir;
}

/** The store inode of a directory of the chain, if the store has it as a directory (without creating anything). */
function lookupDir(store: AgentFS, dir: MirrorDir): number | undefined {
  if (dir.parent === undefined) return dir.ino;
  const parentIno = lookupDir(store, dir.parent);
  if (parentIno === undefined) return undefined;
  const found = store.fs.inodes.child(parentIno, dir.name);
  return found !== undefined && kindOfMode(found.mode) === 'dir' ? found.ino : undefined;
}

/** The entries the last imports of a store left out, in path order. */
export function skippedEntries(store: AgentFS): SkippedEntry[] {
  return new SkippedEntries(store.db).list();
}

function emptySummary(): ImportSummary {
  return { files: 0, dirs: 0, added: 0, updated: 0, unchanged: 0, removed: 0, bytes: 0, rechecked: 0, skipped: [] };
}
