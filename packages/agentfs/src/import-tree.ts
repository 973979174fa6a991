import { lstatSync, readdirSync, readFileSync, readlinkSync, type Dirent, type Stats as NodeStats } from 'node:fs';
import { join } from 'node:path';
import type { AgentFS } from './agentfs.js';
import { AgentFSError } from './errors.js';
import { IgnoreRules, isProtectedPath } from './ignore-rules.js';
import { toTimestamp } from './inode-store.js';
import { kindOfMode } from './mode.js';
import { joinPath, normalizePath, toRelative } from './path.js';
import { describeName, isUtf8Name, SkippedEntries, unreadableReason, type SkippedEntry } from './skipped-entries.js';

/** Progress of an import: the scan counts entries, the import phase counts files and bytes. */
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
  /** How many entries per transaction (default 2000); progress is reported after each. */
  batchSize?: number;
}

/** What an import did; `skipped` lists what it left out (unreadable, or a name that is not UTF-8). */
export interface ImportSummary {
  files: number;
  dirs: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  bytes: number;
  skipped: SkippedEntry[];
}

interface DiskEntry {
  rel: string;
  stats: NodeStats;
}

/** An entry that cannot be imported: recorded, left out of the store, never touched on disk. */
class Unreadable extends Error {
  constructor(readonly entry: SkippedEntry) {
    super(entry.reason);
  }
}

/**
 * Makes a store mirror a directory tree: honours .gitignore (nested, as git does) and never takes `.git` or
 * `.agentfs`; skips files whose size and mtime match, and compares bytes before rewriting the rest;
 * removes from the store what is gone from disk. Modes and modification times are kept.
 *
 * An entry that cannot be read (permissions, a folder that cannot be listed) or whose name is not UTF-8 is
 * left out, as if it were ignored, and listed in `skipped` (and in the store's `cairn_skipped` table): Cairn's
 * paths are text everywhere (tool arguments, journals, diffs), so a name that is not text is never offered
 * to an agent, and nothing skipped is ever written or deleted on disk.
 */
export function importTree(store: AgentFS, root: string, options: ImportOptions = {}): ImportSummary {
  const summary = emptySummary();
  const entries = scanTree(root, '', IgnoreRules.forRoot(root, options.ignore ?? []), summary.skipped, options.onProgress);
  const batchSize = Math.max(1, options.batchSize ?? 2000);
  const keep = new Set<string>();
  for (let start = 0; start < entries.length; start += batchSize) {
    store.transaction(() => {
      for (const entry of entries.slice(start, start + batchSize)) if (importOrSkip(store, root, entry, summary)) keep.add('/' + entry.rel);
    });
    options.onProgress?.({
      phase: 'import',
      done: Math.min(entries.length, start + batchSize),
      total: entries.length,
      bytes: summary.bytes,
    });
  }
  store.transaction(() => {
    pruneMissing(store, '/', keep, summary);
    new SkippedEntries(store.db).replace(summary.skipped, store.clock());
  });
  options.onProgress?.({ phase: 'prune', done: summary.removed, total: summary.removed, bytes: summary.bytes });
  return summary;
}

/** What `importPath` did to one path. */
export type ImportPathResult = 'added' | 'updated' | 'unchanged' | 'removed' | 'ignored' | 'skipped';

/**
 * Brings one project-relative path of the store in line with disk (the watcher's unit of work), under the
 * same rules as `importTree`: a protected name or a path .gitignore ignores is never imported (and is taken
 * out of the store if it was there: `ignored`); one that cannot be read is taken out and recorded
 * (`skipped`). A directory is imported as an entry, its contents being paths of their own, unless `subtree`
 * asks for everything below it too (what an accept needs before it replaces a folder).
 */
export function importPath(store: AgentFS, root: string, rel: string, options: { subtree?: boolean } = {}): ImportPathResult {
  const clean = toRelative(normalizePath('/' + rel.replace(/^\/+/, ''), 'import'));
  const path = '/' + clean;
  if (clean === '') return 'unchanged';
  let stats: NodeStats | undefined;
  const skipped: SkippedEntry[] = [];
  try {
    stats = belowLinkOrFile(root, clean) ? undefined : lstatSync(join(root, clean));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') skipped.push({ path: clean, reason: unreadableReason(error) });
    stats = undefined;
  }
  const summary = emptySummary();
  if (isProtectedPath(clean) || IgnoreRules.ignoresPath(root, clean, stats?.isDirectory() ?? false)) {
    if (!isProtectedPath(clean) && store.fs.locate(path, false) !== undefined)
      store.transaction(() => store.fs.rm(path, { recursive: true }));
    return 'ignored';
  }
  if (stats !== undefined && !stats.isDirectory() && !stats.isFile() && !stats.isSymbolicLink()) return 'ignored';
  store.transaction(() => {
    let imported = stats !== undefined && importOrSkip(store, root, { rel: clean, stats }, summary);
    if (imported && options.subtree === true && stats!.isDirectory()) {
      const entries = scanTree(root, clean, rulesAt(root, clean), summary.skipped);
      if (summary.skipped.some((s) => s.path === clean)) imported = false;
      const keep = new Set<string>();
      for (const entry of entries) if (importOrSkip(store, root, entry, summary)) keep.add('/' + entry.rel);
      pruneMissing(store, path, keep, summary);
    }
    if (!imported && store.fs.locate(path, false) !== undefined) {
      store.fs.rm(path, { recursive: true });
      summary.removed++;
    }
    new SkippedEntries(store.db).update(clean, [...skipped, ...summary.skipped], store.clock());
  });
  if (skipped.length > 0 || summary.skipped.some((s) => s.path === clean)) return 'skipped';
  if (summary.removed > 0) return 'removed';
  if (summary.added > 0) return 'added';
  return summary.updated > 0 ? 'updated' : 'unchanged';
}

/**
 * True when a folder on the way to `rel` is a symbolic link or not a folder on disk: the mirror holds the
 * link itself, never what lies behind it, so the path does not exist there.
 */
function belowLinkOrFile(root: string, rel: string): boolean {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    let stats: NodeStats;
    try {
      stats = lstatSync(join(root, ...parts.slice(0, i)));
    } catch {
      return false;
    }
    if (!stats.isDirectory()) return true;
  }
  return false;
}

/** The entries the last imports of a store left out, in path order. */
export function skippedEntries(store: AgentFS): SkippedEntry[] {
  return new SkippedEntries(store.db).list();
}

function emptySummary(): ImportSummary {
  return { files: 0, dirs: 0, added: 0, updated: 0, unchanged: 0, removed: 0, bytes: 0, skipped: [] };
}

/** The ignore rules in force inside the project-relative directory `rel`. */
function rulesAt(root: string, rel: string): IgnoreRules {
  let rules = IgnoreRules.forRoot(root);
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) rules = rules.enter(root, parts.slice(0, i).join('/'));
  return rules;
}

/**
 * The entries below `start` (project-relative; '' for the root), sorted, those that cannot be imported left
 * out and recorded in `skipped`. Only the root itself must be readable.
 */
function scanTree(
  root: string,
  start: string,
  startRules: IgnoreRules,
  skipped: SkippedEntry[],
  onProgress?: (p: ImportProgress) => void,
): DiskEntry[] {
  const out: DiskEntry[] = [];
  const pending: { rel: string; rules: IgnoreRules }[] = [{ rel: start, rules: startRules }];
  while (pending.length > 0) {
    const { rel, rules } = pending.pop()!;
    let names: Dirent<Buffer>[];
    try {
      names = readdirSync(join(root, rel), { withFileTypes: true, encoding: 'buffer' });
    } catch (cause) {
      if (rel === '')
        throw new AgentFSError('ENOENT', 'import', join(root, rel), `cannot read directory: ${(cause as Error).message}`, { cause });
      const index = out.findIndex((e) => e.rel === rel);
      if (index >= 0) out.splice(index, 1);
      skipped.push({ path: rel, reason: `the folder cannot be listed: ${unreadableReason(cause)}` });
      continue;
    }
    for (const dirent of names) {
      const childRel = rel === '' ? describeName(dirent.name) : `${rel}/${describeName(dirent.name)}`;
      const isDir = dirent.isDirectory();
      if (!isDir && !dirent.isFile() && !dirent.isSymbolicLink()) continue;
      if (rules.ignores(childRel, isDir)) continue;
      if (!isUtf8Name(dirent.name)) {
        skipped.push({ path: childRel, reason: 'the name is not UTF-8' });
        continue;
      }
      let stats: NodeStats;
      try {
        stats = lstatSync(join(root, childRel));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') skipped.push({ path: childRel, reason: unreadableReason(error) });
        continue;
      }
      out.push({ rel: childRel, stats });
      if (stats.isDirectory()) pending.push({ rel: childRel, rules: rules.enter(root, childRel) });
    }
    onProgress?.({ phase: 'scan', done: out.length, total: out.length, bytes: 0 });
  }
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** Imports one entry; false (and the entry recorded as skipped) when it cannot be read. */
function importOrSkip(store: AgentFS, root: string, entry: DiskEntry, summary: ImportSummary): boolean {
  try {
    importEntry(store, root, entry, summary);
    return true;
  } catch (error) {
    if (error instanceof Unreadable) {
      summary.skipped.push(error.entry);
      return false;
    }
    throw error;
  }
}

/** Reads a file or link target on disk; an error becomes `Unreadable` (a file that vanished meanwhile too). */
function readDisk<T>(rel: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw error;
    throw new Unreadable({ path: rel, reason: code === 'ENOENT' ? 'it was removed while it was being imported' : unreadableReason(error) });
  }
}

function importEntry(store: AgentFS, root: string, { rel, stats }: DiskEntry, summary: ImportSummary): void {
  const fs = store.fs;
  const path = '/' + rel;
  const existing = fs.locate(path, false);
  const existingKind = existing === undefined ? undefined : kindOfMode(existing.entry.mode);
  const diskKind = stats.isDirectory() ? 'dir' : stats.isSymbolicLink() ? 'symlink' : 'file';
  const permissions = stats.mode & 0o7777;
  if (existing !== undefined && existingKind !== diskKind) {
    fs.rm(path, { recursive: true });
    summary.removed++;
  }
  const present = existing !== undefined && existingKind === diskKind;
  if (diskKind === 'dir') {
    summary.dirs++;
    if (!present) {
      fs.mkdir(path, { recursive: true, mode: permissions });
      summary.added++;
    } else if ((existing.entry.mode & 0o7777) !== permissions) fs.chmod(path, permissions);
    return;
  }
  summary.files++;
  if (diskKind === 'symlink') {
    const target = readDisk(rel, () => readlinkSync(join(root, rel)));
    if (present && fs.readlink(path) === target) {
      summary.unchanged++;
      return;
    }
    if (present) fs.unlink(path);
    fs.symlink(target, path);
    present ? summary.updated++ : summary.added++;
    return;
  }
  const mtime = toTimestamp(stats.mtimeMs);
  if (present) {
    const row = fs.inodes.inode(existing.entry.ino);
    if (row.size === stats.size && row.mtime === mtime.sec && row.mtime_nsec === mtime.nsec && (row.mode & 0o7777) === permissions) {
      summary.unchanged++;
      return;
    }
    const content = readDisk(rel, () => readFileSync(join(root, rel)));
    summary.bytes += content.byteLength;
    if (row.size === content.byteLength && fs.inodes.readData(existing.entry.ino).equals(content)) {
      fs.inodes.setMtime(existing.entry.ino, mtime);
      if ((row.mode & 0o7777) !== permissions) fs.chmod(path, permissions);
      summary.unchanged++;
      return;
    }
    fs.writeFile(path, content, { mode: permissions, mtimeMs: stats.mtimeMs });
    summary.updated++;
    return;
  }
  const content = readDisk(rel, () => readFileSync(join(root, rel)));
  summary.bytes += content.byteLength;
  fs.writeFile(path, content, { mode: permissions, mtimeMs: stats.mtimeMs });
  summary.added++;
}

function pruneMissing(store: AgentFS, dir: string, keep: ReadonlySet<string>, summary: ImportSummary): void {
  for (const name of store.fs.readdir(dir)) {
    const path = joinPath(dir, name);
    if (!keep.has(path)) {
      store.fs.rm(path, { recursive: true });
      summary.removed++;
      continue;
    }
    if (store.fs.lstat(path).isDirectory()) pruneMissing(store, path, keep, summary);
  }
}
