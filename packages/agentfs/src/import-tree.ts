import { lstatSync, readdirSync, readFileSync, readlinkSync, type Dirent, type Stats as NodeStats } from 'node:fs';
import { join } from 'node:path';
import type { AgentFS } from './agentfs.js';
import { AgentFSError } from './errors.js';
import { IgnoreRules, isProtectedPath } from './ignore-rules.js';
import { toTimestamp } from './inode-store.js';
import { kindOfMode } from './mode.js';
import { joinPath, normalizePath, toRelative } from './path.js';

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

/** What an import did. */
export interface ImportSummary {
  files: number;
  dirs: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  bytes: number;
}

interface DiskEntry {
  rel: string;
  stats: NodeStats;
}

/**
 * Makes a store mirror a directory tree: honours .gitignore (nested, as git does) and never takes `.git` or
 * `.agentfs`; skips files whose size and mtime match, and compares bytes before rewriting the rest;
 * removes from the store what is gone from disk. Modes and modification times are kept.
 */
export function importTree(store: AgentFS, root: string, options: ImportOptions = {}): ImportSummary {
  const entries = scanTree(root, IgnoreRules.forRoot(root, options.ignore ?? []), options.onProgress);
  const summary: ImportSummary = { files: 0, dirs: 0, added: 0, updated: 0, unchanged: 0, removed: 0, bytes: 0 };
  const batchSize = Math.max(1, options.batchSize ?? 2000);
  for (let start = 0; start < entries.length; start += batchSize) {
    store.transaction(() => {
      for (const entry of entries.slice(start, start + batchSize)) importEntry(store, root, entry, summary);
    });
    options.onProgress?.({
      phase: 'import',
      done: Math.min(entries.length, start + batchSize),
      total: entries.length,
      bytes: summary.bytes,
    });
  }
  const keep = new Set(entries.map((e) => '/' + e.rel));
  store.transaction(() => pruneMissing(store, '/', keep, summary));
  options.onProgress?.({ phase: 'prune', done: summary.removed, total: summary.removed, bytes: summary.bytes });
  return summary;
}

/** What `importPath` did to one path. */
export type ImportPathResult = 'added' | 'updated' | 'unchanged' | 'removed' | 'ignored';

/**
 * Brings one project-relative path of the store in line with disk (the watcher's unit of work), under the
 * same rules as `importTree`: a protected name or a path .gitignore ignores is never imported (and is taken
 * out of the store if it was there: `ignored`). A directory is imported as an entry; its contents are
 * paths of their own.
 */
export function importPath(store: AgentFS, root: string, rel: string): ImportPathResult {
  const clean = toRelative(normalizePath('/' + rel.replace(/^\/+/, ''), 'import'));
  const path = '/' + clean;
  if (clean === '') return 'unchanged';
  let stats: NodeStats | undefined;
  try {
    stats = lstatSync(join(root, clean));
  } catch {
    stats = undefined;
  }
  const summary: ImportSummary = { files: 0, dirs: 0, added: 0, updated: 0, unchanged: 0, removed: 0, bytes: 0 };
  if (isProtectedPath(clean) || IgnoreRules.ignoresPath(root, clean, stats?.isDirectory() ?? false)) {
    if (!isProtectedPath(clean) && store.fs.locate(path, false) !== undefined)
      store.transaction(() => store.fs.rm(path, { recursive: true }));
    return 'ignored';
  }
  if (stats !== undefined && !stats.isDirectory() && !stats.isFile() && !stats.isSymbolicLink()) return 'ignored';
  store.transaction(() => {
    if (stats === undefined) {
      if (store.fs.locate(path, false) !== undefined) {
        store.fs.rm(path, { recursive: true });
        summary.removed++;
      }
      return;
    }
    importEntry(store, root, { rel: clean, stats }, summary);
  });
  if (summary.removed > 0) return 'removed';
  if (summary.added > 0) return 'added';
  return summary.updated > 0 ? 'updated' : 'unchanged';
}

function scanTree(root: string, rootRules: IgnoreRules, onProgress?: (p: ImportProgress) => void): DiskEntry[] {
  const out: DiskEntry[] = [];
  const pending: { rel: string; rules: IgnoreRules }[] = [{ rel: '', rules: rootRules }];
  while (pending.length > 0) {
    const { rel, rules } = pending.pop()!;
    let names: Dirent[];
    try {
      names = readdirSync(join(root, rel), { withFileTypes: true });
    } catch (cause) {
      throw new AgentFSError('ENOENT', 'import', join(root, rel), `cannot read directory: ${(cause as Error).message}`, { cause });
    }
    for (const dirent of names) {
      const childRel = rel === '' ? dirent.name : `${rel}/${dirent.name}`;
      const isDir = dirent.isDirectory();
      if (!isDir && !dirent.isFile() && !dirent.isSymbolicLink()) continue;
      if (rules.ignores(childRel, isDir)) continue;
      out.push({ rel: childRel, stats: lstatSync(join(root, childRel)) });
      if (isDir) pending.push({ rel: childRel, rules: rules.enter(root, childRel) });
    }
    onProgress?.({ phase: 'scan', done: out.length, total: out.length, bytes: 0 });
  }
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
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
    const target = readlinkSync(join(root, rel));
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
    const content = readFileSync(join(root, rel));
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
  const content = readFileSync(join(root, rel));
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
