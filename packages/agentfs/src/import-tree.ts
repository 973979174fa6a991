import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AgentFS } from './agentfs.js';
import { beginBulkCommits } from './bulk-commits.js';
import { listerHere, listerOnWorker } from './folder-lister.js';
import { IgnoreRules } from './ignore-rules.js';
import { checkRoomFor } from './import-room.js';
import { emptySummary, type ImportSummary } from './import-summary.js';
import { MirrorRows } from './mirror-rows.js';
import { MirrorWriter } from './mirror-writer.js';
import { comparePaths, SkippedEntries, type SkippedEntry } from './skipped-entries.js';
import { mirrorRoot, type PlannedEntry, scanTree, type TreeScan } from './tree-scan.js';

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
  /**
   * Called with each directory of the mirror (project-relative, '' for the root) just before it is listed, with
   * its inode on disk when the walk already knows it (from its parent's listing).
   */
  onDirectory?: (rel: string, diskIno?: number) => void;
  /** How many entries per transaction (default 2000); progress is reported after each. */
  batchSize?: number;
  /** The wall clock file times are compared with (the racy-timestamp rule of the stat cache); `Date.now` by default. */
  clock?: () => number;
  /**
   * Lists the folders and stats their entries on a worker thread, ahead of the comparing: true always, false
   * never; by default when the store already holds many entries (a re-import of a large tree).
   */
  listAhead?: boolean;
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
 *
 * An import its disk has no room for is refused after the walk, before it writes (`checkRoomFor`).
 */
export function importTree(store: AgentFS, root: string, options: ImportOptions = {}): ImportSummary {
  const summary = emptySummary();
  const steps = runImport(store, root, options, summary);
  try {
    while (steps.next().done !== true);
  } catch (error) {
    abandon(steps, store);
    throw error;
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
  } catch (error) {
    abandon(steps, store);
    throw error;
  } finally {
    // an abort leaves the walk suspended: this runs its `finally`, which restores the connection's settings
    steps.return();
  }
  return summary;
}

/**
 * Ends an import that failed: its walk is finished (restoring the connection's settings), and the space the
 * write-ahead log grew to for the rolled-back batch is handed back to the disk. The failure is most often a full
 * disk, and a log left that large would keep it full after Cairn's command has ended.
 */
function abandon(steps: Generator<void, void>, store: AgentFS): void {
  steps.return();
  if (store.db.inTransaction) return;
  try {
    store.db.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // the error that stopped the import is the one to report
  }
}

function* runImport(store: AgentFS, root: string, options: ImportOptions, summary: ImportSummary): Generator<void, void> {
  const checkedAt = (options.clock ?? Date.now)();
  const onProgress = options.onProgress;
  const rules = IgnoreRules.forRoot(root, options.ignore ?? []);
  const lister = (options.listAhead ?? isLarge(store)) ? listerOnWorker(root) : listerHere(root);
  let scan: TreeScan;
  try {
    const walk = scanTree(root, mirrorRoot(), rules, new MirrorRows(store.db), {
      onDirectory: options.onDirectory,
      lister,
      readAllRows: true,
    });
    let step = walk.next();
    for (; step.done !== true; step = walk.next()) {
      onProgress?.({ phase: 'scan', done: step.value, total: step.value, bytes: 0 });
      yield;
    }
    scan = step.value;
  } finally {
    lister.close();
  }
  const total = scan.files + scan.dirs;
  onProgress?.({ phase: 'scan', done: total, total, bytes: 0 });
  checkRoomFor(store, scan.planned);
  const writer = new MirrorWriter(store, root, summary, checkedAt);
  let done = total - scan.planned.length;
  onProgress?.({ phase: 'import', done, total, bytes: 0 });
  const batchSize = Math.max(1, options.batchSize ?? 2000);
  // one batch is one commit either way: only an import of several writes in bulk
  const endBulk =
    scan.planned.length > batchSize && !store.db.inTransaction ? beginBulkCommits(store.db, { fresh: storeIsEmpty(store) }) : undefined;
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

/**
 * True when the store has held many entries: its tree is worth listing on a worker thread (whose start costs
 * about what listing a thousand entries does). The largest entry id counts removed entries too, which only
 * errs towards the worker.
 */
function isLarge(store: AgentFS): boolean {
  const most = store.db.prepare('SELECT max(id) FROM fs_dentry').pluck().get() as number | null;
  return (most ?? 0) >= LARGE_TREE_ENTRIES;
}

/** The number of entries from which a re-import lists folders on a worker thread. */
const LARGE_TREE_ENTRIES = 10_000;

/** True when the store holds no entry below its root yet (its first import). */
function storeIsEmpty(store: AgentFS): boolean {
  return store.db.prepare('SELECT 1 FROM fs_dentry LIMIT 1').get() === undefined;
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
export function unread(scan: TreeScan, entry: PlannedEntry): void {
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

/** The entries the last imports of a store left out, in path order. */
export function skippedEntries(store: AgentFS): SkippedEntry[] {
  return new SkippedEntries(store.db).list();
}
