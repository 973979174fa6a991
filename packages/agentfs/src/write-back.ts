import {
  chmodSync,
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { readDiskState, sameState, stateOf, type EntryState } from './entry-state.js';
import type { FileSystem } from './file-system.js';
import { AgentFSError } from './errors.js';
import { isProtectedPath } from './ignore-rules.js';
import { normalizePath, toRelative } from './path.js';

let tempCounter = 0;

/** Options of `writeBack`: what the caller expects the disk to hold at each path before the write. */
export interface WriteBackOptions {
  /** Project-relative path → the state the disk must still hold for the path to be written. */
  expected?: ReadonlyMap<string, EntryState>;
}

/** What `writeBack` wrote, and what it left alone because the disk had moved on. */
export interface WriteBackResult {
  written: string[];
  moved: { path: string; expected: EntryState; found: EntryState }[];
}

/**
 * Writes the given paths of a store (or overlay) to a directory, so the directory holds what the store holds:
 * files through a temp file (fsynced) and an atomic rename with their modes, symlinks likewise, deletions
 * removed (directories only when empty); each touched directory is fsynced after its renames. Paths are
 * project-relative.
 *
 * Before anything is written: a protected path (`.git`, `.agentfs`, `.cairn`, …) or a path below a symbolic
 * link on disk is refused (`EPERM`); and each path with an expectation is compared with the disk — one whose
 * disk state moved (an edit never imported) is not written but returned in `moved`, so the caller can merge.
 */
export function writeBack(fs: FileSystem, root: string, paths: readonly string[], options: WriteBackOptions = {}): WriteBackResult {
  const ordered = paths.map((p) => toRelative(normalizePath(p, 'writeBack'))).sort();
  for (const rel of ordered) {
    if (rel === '') throw new AgentFSError('EINVAL', 'writeBack', rel, 'cannot write back the root itself');
    if (isProtectedPath(rel))
      throw new AgentFSError('EPERM', 'writeBack', rel, "a protected path (version control or Cairn's own files) is never written back");
  }
  refuseLinkedAncestors(root, ordered);
  const moved: WriteBackResult['moved'] = [];
  for (const rel of ordered) {
    const expected = options.expected?.get(rel);
    if (expected === undefined) continue;
    const found = readDiskState(root, rel);
    if (!sameState(found, expected)) moved.push({ path: rel, expected, found });
  }
  const skip = new Set(moved.map((m) => m.path));
  const todo = ordered.filter((rel) => !skip.has(rel));
  const touchedDirs = new Set<string>();
  const deletions = todo.filter((rel) => stateOf(fs, '/' + rel).kind === 'absent').reverse();
  for (const rel of todo) {
    const state = stateOf(fs, '/' + rel);
    if (state.kind === 'absent') continue;
    writeState(join(root, rel), state);
    touchedDirs.add(dirname(join(root, rel)));
  }
  for (const rel of deletions) {
    removeFromDisk(join(root, rel));
    touchedDirs.add(dirname(join(root, rel)));
  }
  for (const dir of touchedDirs) syncDirectory(dir);
  return { written: todo, moved };
}

/**
 * Refuses, before anything is written, a path whose parent directory on disk is reached through a symbolic
 * link that this write-back does not itself replace: writing there would land outside the tree the store
 * describes (perhaps outside the project).
 */
function refuseLinkedAncestors(root: string, ordered: readonly string[]): void {
  const rewritten = new Set(ordered);
  const checked = new Set<string>();
  for (const rel of ordered) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const ancestor = parts.slice(0, i).join('/');
      if (rewritten.has(ancestor)) continue;
      if (checked.has(ancestor)) continue;
      checked.add(ancestor);
      if (lstatOrUndefined(join(root, ancestor))?.isSymbolicLink()) {
        throw new AgentFSError('EPERM', 'writeBack', rel, `'${ancestor}' is a symbolic link on disk; Cairn does not write through links`);
      }
    }
  }
}

/** Writes one entry state to a disk path (temp file + rename for files and symlinks). */
export function writeState(target: string, state: EntryState): void {
  if (state.kind === 'absent') {
    removeFromDisk(target);
    return;
  }
  if (state.kind === 'dir') {
    const existing = lstatOrUndefined(target);
    if (existing !== undefined && !existing.isDirectory()) unlinkSync(target);
    mkdirSync(target, { recursive: true });
    chmodSync(target, state.mode & 0o7777);
    return;
  }
  mkdirSync(dirname(target), { recursive: true });
  const existing = lstatOrUndefined(target);
  if (existing?.isDirectory()) rmSync(target, { recursive: true });
  const temp = join(dirname(target), `.cairn-${process.pid}-${++tempCounter}.tmp`);
  try {
    if (state.kind === 'symlink') {
      symlinkSync(state.content.toString('utf8'), temp);
    } else {
      const fd = openSync(temp, 'w', state.mode & 0o7777);
      try {
        for (let offset = 0; offset < state.content.byteLength; ) offset += writeSync(fd, state.content, offset);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      chmodSync(temp, state.mode & 0o7777);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** fsync a directory, so the renames in it survive a power loss. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // a directory that is gone, or a file system that cannot fsync directories, has nothing to make durable
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function removeFromDisk(target: string): void {
  const existing = lstatOrUndefined(target);
  if (existing === undefined) return;
  if (!existing.isDirectory()) {
    unlinkSync(target);
    return;
  }
  try {
    rmdirSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error;
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
