import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isAgentFSError } from './errors.js';
import type { FileSystem } from './file-system.js';

/** What a path holds in one tree at one moment; files and symlinks carry their bytes and hash. */
export type EntryState =
  | { kind: 'absent' }
  | { kind: 'dir'; mode: number }
  | { kind: 'file' | 'symlink'; mode: number; hash: string; content: Buffer };

/** What two states are compared by (`sameState`): kind, permission bits and hash, without the bytes. */
export type StateSummary = { kind: 'absent' } | { kind: 'dir'; mode: number } | { kind: 'file' | 'symlink'; mode: number; hash: string };

/** A state without its bytes. */
export function summaryOf(state: StateSummary): StateSummary {
  if (state.kind === 'absent') return { kind: 'absent' };
  if (state.kind === 'dir') return { kind: 'dir', mode: state.mode };
  return { kind: state.kind, mode: state.mode, hash: state.hash };
}

/** SHA-256 of content, as lowercase hex. */
export function hashContent(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** True when two states hold the same kind, bytes and permission bits. */
export function sameState(a: StateSummary, b: StateSummary): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'absent' || b.kind === 'absent') return true;
  if ((a.mode & 0o7777) !== (b.mode & 0o7777)) return false;
  if (a.kind === 'dir' || b.kind === 'dir') return true;
  return a.hash === b.hash;
}

/**
 * A state as one line of text: kind, permission bits and hash (what `sameState` compares). Digests of a tree's
 * states are made of these lines, so two equal lines are two states `sameState` calls the same.
 */
export function stateLine(state: StateSummary): string {
  if (state.kind === 'absent') return 'absent';
  if (state.kind === 'dir') return `dir ${(state.mode & 0o7777).toString(8)}`;
  return `${state.kind} ${(state.mode & 0o7777).toString(8)} ${state.hash}`;
}

/** True when two states hold the same kind and bytes (permission bits aside). */
export function sameContent(a: EntryState, b: EntryState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'absent' || a.kind === 'dir' || b.kind === 'absent' || b.kind === 'dir') return true;
  return a.hash === b.hash;
}

/** The state of `path` in a file system, not following a final symlink. */
export function stateOf(fs: FileSystem, path: string): EntryState {
  let stats: ReturnType<FileSystem['lstat']>;
  try {
    stats = fs.lstat(path);
  } catch (error) {
    if (isAgentFSError(error, 'ENOENT') || isAgentFSError(error, 'ENOTDIR')) return { kind: 'absent' };
    throw error;
  }
  if (stats.isDirectory()) return { kind: 'dir', mode: stats.mode };
  const content = stats.isSymbolicLink() ? Buffer.from(fs.readlink(path), 'utf8') : fs.readFile(path);
  return { kind: stats.isSymbolicLink() ? 'symlink' : 'file', mode: stats.mode, hash: hashContent(content), content };
}

/** The state of a project-relative path on disk, not following a final symlink (`absent` when missing). */
export function readDiskState(root: string, rel: string): EntryState {
  const full = join(root, rel);
  let stats: Stats;
  try {
    stats = lstatSync(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    throw error;
  }
  if (stats.isDirectory()) return { kind: 'dir', mode: stats.mode };
  if (stats.isSymbolicLink()) {
    const content = Buffer.from(readlinkSync(full), 'utf8');
    return { kind: 'symlink', mode: stats.mode, hash: hashContent(content), content };
  }
  const content = readFileSync(full);
  return { kind: 'file', mode: stats.mode, hash: hashContent(content), content };
}

/** Like `readDiskState`, but undefined where the entry cannot be read (permissions, a name the file system refuses). */
export function tryReadDiskState(root: string, rel: string): EntryState | undefined {
  try {
    return readDiskState(root, rel);
  } catch {
    return undefined;
  }
}
