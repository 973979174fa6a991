import { type Stats as DiskStats, lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentFS } from './agentfs.js';
import { isProtectedPath, TreeIgnoreRules } from './ignore-rules.js';
import { checkRoomFor } from './import-room.js';
import { emptySummary, type ImportSummary } from './import-summary.js';
import { unread } from './import-tree.js';
import { MirrorRows } from './mirror-rows.js';
import { MirrorWriter } from './mirror-writer.js';
import { kindOfMode } from './mode.js';
import { normalizePath, toRelative } from './path.js';
import { SkippedEntries, type SkippedEntry, unreadableReason } from './skipped-entries.js';
import { compareEntry, type MirrorDir, mirrorDir, mirrorRoot, scanTree } from './tree-scan.js';

/** What `importPath` did to one path. */
export type ImportPathResult = 'added' | 'updated' | 'unchanged' | 'removed' | 'ignored' | 'skipped';

/** Options of `importPath`. */
export interface ImportPathOptions {
  /** Import everything below a directory too (what an accept needs before it replaces a folder). */
  subtree?: boolean;
  /** The tree's ignore rules, kept by a caller that imports many paths (the watcher); read afresh otherwise. */
  rules?: TreeIgnoreRules;
  /**
   * Called with each directory a subtree import lists, just before it is listed, with its inode on disk when the
   * walk already knows it (from its parent's listing).
   */
  onDirectory?: (rel: string, diskIno?: number) => void;
  /**
   * Import each given path even where the ignore rules leave it out (not what lies below it, and never a protected
   * name), so an accept or an undo about to write there compares with what the disk holds; `pruneIgnored` takes
   * such paths out again afterwards.
   */
  evenIgnored?: boolean;
}

/**
 * Brings one project-relative path of the store in line with disk (the watcher's unit of work), under the
 * same rules as `importTree`: a protected name or a path .gitignore ignores is never imported (and is taken
 * out of the store if it was there: `ignored`); one that cannot be read is taken out and recorded
 * (`skipped`). A directory is imported as an entry, its contents being paths of their own, unless `subtree`
 * asks for everything below it too. A file the stat cache vouches for is not read.
 */
export function importPath(store: AgentFS, root: string, rel: string, options: ImportPathOptions = {}): ImportPathResult {
  return importPaths(store, root, [rel], options)[0]!;
}

/**
 * `importPath` for each of `rels` in order, in one immediate transaction with one set of prepared queries: what
 * an accept or an undo imports of the paths it is about to change. One result per path.
 */
export function importPaths(store: AgentFS, root: string, rels: readonly string[], options: ImportPathOptions = {}): ImportPathResult[] {
  const rules = options.rules ?? new TreeIgnoreRules(root);
  const summary = emptySummary();
  const writer = new MirrorWriter(store, root, summary, Date.now());
  const shared: Shared = {
    store,
    root,
    rules,
    options,
    writer,
    summary,
    rows: new MirrorRows(store.db),
    skippedLog: new SkippedEntries(store.db),
    folders: new Map(),
  };
  return writer.batch(() => rels.map((rel) => importOne(shared, rel)));
}

/** What the paths of one `importPaths` share. */
interface Shared {
  store: AgentFS;
  root: string;
  rules: TreeIgnoreRules;
  options: ImportPathOptions;
  writer: MirrorWriter;
  /** Counts of every path so far: one path's outcome is what its import added to them. */
  summary: ImportSummary;
  rows: MirrorRows;
  skippedLog: SkippedEntries;
  /** What `parentOnDisk` found of each folder (its permissions, or null), by path. */
  folders: Map<string, number | null>;
}

function importOne(shared: Shared, rel: string): ImportPathResult {
  const { store, root, rules, writer, summary } = shared;
  const clean = toRelative(normalizePath('/' + rel.replace(/^\/+/, ''), 'import'));
  const path = '/' + clean;
  if (clean === '') return 'unchanged';
  const dir = parentOnDisk(root, clean, shared.folders);
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
  const ignored = isProtectedPath(clean) || rules.ignores(clean, stats?.isDirectory() ?? false);
  if (ignored && (shared.options.evenIgnored !== true || isProtectedPath(clean))) {
    if (!isProtectedPath(clean) && store.fs.locate(path, false) !== undefined)
      store.transaction(() => store.fs.rm(path, { recursive: true }));
    return 'ignored';
  }
  if (stats !== undefined && !stats.isDirectory() && !stats.isFile() && !stats.isSymbolicLink()) return 'ignored';
  const before = { ...summary, skipped: summary.skipped.length };
  let imported = false;
  if (dir !== undefined && stats !== undefined) {
    const name = clean.slice(clean.lastIndexOf('/') + 1);
    const parentIno = lookupDir(store, dir);
    const found = compareEntry(dir, name, stats, parentIno === undefined ? undefined : shared.rows.at(parentIno, name))!;
    if (found.planned !== undefined) checkRoomFor(store, [found.planned]);
    imported = found.planned === undefined || writer.apply(found.planned);
    if (found.planned === undefined) summary.unchanged++;
    if (imported && shared.options.subtree === true && found.self !== undefined && !ignored) imported = importBelow(shared, found.self);
  }
  if (!imported && store.fs.locate(path, false) !== undefined) writer.remove(clean);
  const ownSkipped = summary.skipped.slice(before.skipped);
  shared.skippedLog.update(clean, [...skipped, ...ownSkipped], store.clock());
  if (skipped.length > 0 || ownSkipped.some((s) => s.path === clean)) return 'skipped';
  if (summary.removed > before.removed) return 'removed';
  if (summary.added > before.added) return 'added';
  return summary.updated > before.updated ? 'updated' : 'unchanged';
}

/**
 * Takes out of the store the given paths (and the folders above them) that the ignore rules leave out: what an
 * import `evenIgnored` brought in for an accept or an undo, once the disk has been written. Returns them.
 */
export function pruneIgnored(
  store: AgentFS,
  root: string,
  rels: readonly string[],
  rules: TreeIgnoreRules = new TreeIgnoreRules(root),
): string[] {
  const candidates = new Set<string>();
  for (const rel of rels) {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) candidates.add(parts.slice(0, i).join('/'));
  }
  const ignored = [...candidates].filter((rel) => {
    if (isProtectedPath(rel) || store.fs.locate('/' + rel, false) === undefined) return false;
    let isDir = false;
    try {
      isDir = lstatSync(join(root, rel), { throwIfNoEntry: false })?.isDirectory() ?? false;
    } catch {
      // not there, or not reachable: a file as far as the rules go
    }
    return rules.ignores(rel, isDir);
  });
  if (ignored.length > 0)
    store.transaction(() => {
      for (const rel of ignored.sort()) if (store.fs.locate('/' + rel, false) !== undefined) store.fs.rm('/' + rel, { recursive: true });
    });
  return ignored;
}

/** Imports everything below a directory just imported; false when the directory itself cannot be listed. */
function importBelow(shared: Shared, self: MirrorDir): boolean {
  const { writer, summary } = shared;
  const walk = scanTree(shared.root, self, shared.rules.at(self.rel), shared.rows, { onDirectory: shared.options.onDirectory });
  let step = walk.next();
  while (step.done !== true) step = walk.next();
  const scan = step.value;
  summary.skipped.push(...scan.skipped);
  if (scan.skipped.some((entry) => entry.path === self.rel)) return false;
  checkRoomFor(shared.store, scan.planned);
  for (const entry of scan.planned) if (!writer.apply(entry)) unread(scan, entry);
  writer.removeStale(scan.stale);
  return true;
}

/**
 * The walk's directory chain from the root to the parent of `rel`, each confirmed a directory on disk; undefined
 * when a folder on the way is a symbolic link or not a folder (the mirror holds the link itself, never what lies
 * behind it, so the path does not exist there) or is gone. `folders` keeps what each folder's `lstat` found
 * (its permissions, or null), so the paths of one import stat their shared folders once; each path gets a chain
 * of its own, since the writer marks the chain's entries as it confirms them.
 */
function parentOnDisk(root: string, rel: string, folders: Map<string, number | null>): MirrorDir | undefined {
  const parts = rel.split('/');
  let dir = mirrorRoot();
  for (let i = 0; i < parts.length - 1; i++) {
    const folder = i === 0 ? parts[0]! : `${dir.rel}/${parts[i]!}`;
    let permissions = folders.get(folder);
    if (permissions === undefined) {
      permissions = folderPermissions(join(root, folder));
      folders.set(folder, permissions);
    }
    if (permissions === null) return undefined;
    dir = mirrorDir(dir, parts[i]!, permissions);
  }
  return dir;
}

/** A folder's permission bits; null when it is missing, cannot be stat'ed, or is not a folder. */
function folderPermissions(path: string): number | null {
  let stats: DiskStats | undefined;
  try {
    stats = lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return null;
  }
  return stats?.isDirectory() ? stats.mode & 0o7777 : null;
}

/** The store inode of a directory of the chain, if the store has it as a directory (without creating anything). */
function lookupDir(store: AgentFS, dir: MirrorDir): number | undefined {
  if (dir.parent === undefined) return dir.ino;
  const parentIno = lookupDir(store, dir.parent);
  if (parentIno === undefined) return undefined;
  const found = store.fs.inodes.child(parentIno, dir.name);
  return found !== undefined && kindOfMode(found.mode) === 'dir' ? found.ino : undefined;
}
