import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stateOf, type EntryState } from './entry-state.js';
import type { FileSystem } from './file-system.js';
import { AgentFSError } from './errors.js';
import { normalizePath, toRelative } from './path.js';

let tempCounter = 0;

/**
 * Writes the given paths of a store (or overlay) to a directory, so the directory holds what the store holds:
 * files through a temp file and an atomic rename with their modes, symlinks likewise, deletions removed
 * (directories only when empty). Paths are project-relative.
 */
export function writeBack(fs: FileSystem, root: string, paths: readonly string[]): void {
  const ordered = paths.map((p) => toRelative(normalizePath(p, 'writeBack'))).sort();
  refuseLinkedAncestors(root, ordered);
  const deletions = ordered.filter((rel) => stateOf(fs, '/' + rel).kind === 'absent').reverse();
  for (const rel of ordered) {
    const state = stateOf(fs, '/' + rel);
    if (state.kind !== 'absent') writeState(join(root, rel), state);
  }
  for (const rel of deletions) removeFromDisk(join(root, rel));
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
