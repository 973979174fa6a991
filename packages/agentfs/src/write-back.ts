import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { type EntryState, type StateSummary, sameState, stateOf, tryReadDiskState } from './entry-state.js';
import { AgentFSError } from './errors.js';
import type { FileSystem } from './file-system.js';
import { isProtectedPath } from './ignore-rules.js';
import { normalizePath, toRelative } from './path.js';
import { syncDirectory } from './sync-directory.js';

let tempCounter = 0;

/** Options of `writeBack`: what the caller expects the disk to hold at each path before the write. */
export interface WriteBackOptions {
  /** Project-relative path → the state the disk must still hold for the path to be written. */
  expected?: ReadonlyMap<string, StateSummary>;
  /**
   * A path whose disk already holds what the store holds is reported in `written` without being written (or
   * checked against `expected`): an operation finished again after a crash finds what it wrote before.
   */
  skipUnchanged?: boolean;
  /** Wait for the disk (fsync) after each file written and each folder changed (default true). */
  durable?: boolean;
  /** Project-relative path → what the store holds there, known to a caller that has just written it; read from the store otherwise. */
  states?: ReadonlyMap<string, EntryState>;
  /**
   * True for a path the store never holds (what the ignore rules leave out): a folder to delete that holds only
   * such entries (besides what is deleted) is kept with them, as git keeps a folder of ignored files.
   */
  leftOut?: (rel: string, isDir: boolean) => boolean;
}

/**
 * What `writeBack` wrote; what it left alone because the disk had moved on (`found` is undefined where it
 * cannot be read); and what the system refused to write (permissions, a full disk), each with its error.
 */
export interface WriteBackResult {
  written: string[];
  /** Folders to delete that were kept for the entries `leftOut` names in them (their other contents were deleted). */
  kept: string[];
  moved: { path: string; expected: StateSummary | undefined; found: EntryState | undefined }[];
  failed: { path: string; error: unknown }[];
}

/**
 * Writes the given paths of a store (or overlay) to a directory, so the directory holds what the store holds:
 * deletions first (directories only when empty, deepest first), then files through a temp file and an atomic
 * rename with their modes, symlinks likewise; unless `durable` is false, each file is fsynced before its rename
 * and each touched directory after its renames.
 * Paths are project-relative.
 *
 * Before anything is written: a protected path (`.git`, `.agentfs`, `.cairn`, …) is refused (`EPERM`); a path
 * below a symbolic link on disk is never written (returned in `failed`, `EPERM`); and each path is compared with the disk — one whose disk state moved
 * from its expectation (an edit never imported), one that cannot be read, and a folder that would be replaced
 * while it holds entries this write-back does not delete, is not written but returned in `moved`, so the
 * caller can merge. Nothing on disk is ever deleted that the store did not hold. A path the system refuses
 * to write (permissions, a read-only or full disk) does not stop the others: it is returned in `failed`.
 */
export function writeBack(fs: FileSystem, root: string, paths: readonly string[], options: WriteBackOptions = {}): WriteBackResult {
  const sorted = paths.map((p) => toRelative(normalizePath(p, 'writeBack'))).sort();
  const durable = options.durable !== false;
  if (sorted.includes('')) throw new AgentFSError('EINVAL', 'writeBack', '', 'cannot write back the root itself');
  const states = new Map(sorted.map((rel) => [rel, options.states?.get(rel) ?? stateOf(fs, '/' + rel)]));
  // what the disk holds, read once per path: for the unchanged ones, for the check against `expected`, and for the write
  const disk = new Map<string, EntryState | undefined>();
  const diskState = (rel: string) => {
    if (!disk.has(rel)) disk.set(rel, tryReadDiskState(root, rel));
    return disk.get(rel);
  };
  const unchanged = new Set(options.skipUnchanged === true ? sorted.filter((rel) => sameOnDisk(diskState(rel), states.get(rel)!)) : []);
  const ordered = unchanged.size === 0 ? sorted : sorted.filter((rel) => !unchanged.has(rel));
  for (const rel of ordered)
    if (isProtectedPath(rel))
      throw new AgentFSError('EPERM', 'writeBack', rel, "a protected path (version control or Cairn's own files) is never written back");
  const linked = linkedAncestors(root, ordered);
  const linkedPaths = new Set(linked.map((l) => l.path));
  const deleting = new Set(ordered.filter((rel) => states.get(rel)!.kind === 'absent'));
  const moved: WriteBackResult['moved'] = [];
  const kept: string[] = [];
  const heldBack: WriteBackResult['failed'] = [];
  for (const rel of ordered) {
    if (linkedPaths.has(rel)) continue;
    const expected = options.expected?.get(rel);
    const found = diskState(rel);
    const target = states.get(rel)!;
    if (found === undefined || (expected !== undefined && !sameState(found, expected))) {
      moved.push({ path: rel, expected, found });
      continue;
    }
    if (found.kind !== 'dir' || target.kind === 'dir') continue;
    const held = heldIn(join(root, rel), rel, deleting, options.leftOut);
    if (held.others) moved.push({ path: rel, expected, found });
    else if (held.leftOut !== undefined && target.kind === 'absent') kept.push(rel);
    else if (held.leftOut !== undefined) {
      const message = `the folder holds ${held.leftOut}, which the ignore rules leave out; Cairn never deletes it`;
      heldBack.push({ path: rel, error: new AgentFSError('ENOTEMPTY', 'writeBack', rel, message) });
    }
  }
  const movedPaths = new Set(moved.map((m) => m.path));
  const failed: WriteBackResult['failed'] = [...linked, ...heldBack, ...readOnlyFiles(root, ordered, movedPaths, disk)];
  const skip = new Set([...movedPaths, ...kept, ...failed.map((f) => f.path)]);
  const todo = ordered.filter((rel) => !skip.has(rel));
  const touchedDirs = new Set<string>();
  /** Folders known to exist on disk: a file's folder is made once, not before each file. */
  const folders = new Set<string>();
  const attempt = (rel: string, write: () => void) => {
    try {
      write();
    } catch (error) {
      if (typeof (error as { code?: unknown }).code !== 'string') throw error;
      failed.push({ path: rel, error });
    }
    touchedDirs.add(dirname(join(root, rel)));
  };
  for (const rel of todo.filter((r) => deleting.has(r)).reverse()) attempt(rel, () => removeFromDisk(join(root, rel)));
  for (const rel of todo) {
    const state = states.get(rel)!;
    if (state.kind === 'absent') continue;
    const under = failed.find((f) => rel.startsWith(f.path + '/'));
    if (under !== undefined) failed.push({ path: rel, error: under.error });
    else attempt(rel, () => writeState(join(root, rel), state, { folders, found: disk.get(rel), durable }));
  }
  if (durable) for (const dir of touchedDirs) syncDirectory(dir);
  const failedPaths = new Set(failed.map((f) => f.path));
  const written = todo.filter((rel) => !failedPaths.has(rel));
  return { written: unchanged.size === 0 ? written : [...unchanged, ...written].sort(), kept, moved, failed };
}

/** True when the disk holds what the store holds (a folder: that it is one; the rest: kind, bytes and mode). */
function sameOnDisk(found: EntryState | undefined, target: EntryState): boolean {
  return found !== undefined && sameState(found, target);
}

/** Files on disk the user may not write: a read-only file is the user's way of saying it must not change, so it is never replaced or deleted. */
function readOnlyFiles(
  root: string,
  ordered: readonly string[],
  moved: ReadonlySet<string>,
  disk: ReadonlyMap<string, EntryState | undefined>,
): WriteBackResult['failed'] {
  const failed: WriteBackResult['failed'] = [];
  for (const rel of ordered) {
    if (moved.has(rel)) continue;
    // what was read of the path a moment ago says whether it is a file; a path not read is looked at
    const read = disk.get(rel);
    if (read !== undefined ? read.kind !== 'file' : !lstatOrUndefined(join(root, rel))?.isFile()) continue;
    try {
      accessSync(join(root, rel), constants.W_OK);
    } catch {
      failed.push({
        path: rel,
        error: new AgentFSError('EPERM', 'writeBack', rel, 'the file is read-only for you; Cairn does not replace it'),
      });
    }
  }
  return failed;
}

/**
 * What a disk folder about to be deleted or replaced holds (at any depth) besides the paths being deleted: `others`
 * when something the store could hold, else the first entry `leftOut` names (the store never holds those).
 */
function heldIn(
  dir: string,
  rel: string,
  deleting: ReadonlySet<string>,
  leftOut: WriteBackOptions['leftOut'],
): { others: boolean; leftOut?: string } {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { others: true };
  }
  let firstLeftOut: string | undefined;
  for (const name of names) {
    const childRel = `${rel}/${name}`;
    const isDir = lstatOrUndefined(join(dir, name))?.isDirectory() === true;
    if (!deleting.has(childRel)) {
      if (leftOut?.(childRel, isDir) !== true) return { others: true };
      firstLeftOut ??= childRel;
      continue;
    }
    if (!isDir) continue;
    const below = heldIn(join(dir, name), childRel, deleting, leftOut);
    if (below.others) return below;
    firstLeftOut ??= below.leftOut;
  }
  return firstLeftOut === undefined ? { others: false } : { others: false, leftOut: firstLeftOut };
}

/**
 * The paths whose parent directory on disk is reached through a symbolic link that this write-back does not
 * itself replace, each with an `EPERM` error: writing there would land outside the tree the store describes
 * (perhaps outside the project), so they are never written.
 */
function linkedAncestors(root: string, ordered: readonly string[]): WriteBackResult['failed'] {
  const rewritten = new Set(ordered);
  const links = new Map<string, boolean>();
  const failed: WriteBackResult['failed'] = [];
  for (const rel of ordered) {
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const ancestor = parts.slice(0, i).join('/');
      if (rewritten.has(ancestor)) continue;
      if (!links.has(ancestor)) links.set(ancestor, lstatOrUndefined(join(root, ancestor))?.isSymbolicLink() === true);
      if (links.get(ancestor)) {
        const message = `'${ancestor}' is a symbolic link on disk; Cairn does not write through links`;
        failed.push({ path: rel, error: new AgentFSError('EPERM', 'writeBack', rel, message) });
        break;
      }
    }
  }
  return failed;
}

/**
 * What a caller of `writeState` already knows: folders it made or found on disk (`folders`, filled as it goes),
 * and what the disk held at the target a moment ago (`found`), so neither is asked of the disk again.
 */
export interface WriteStateHints {
  folders?: Set<string>;
  found?: EntryState | undefined;
  /** Fsync the file before its rename (default true). */
  durable?: boolean;
}

/** Writes one entry state to a disk path (temp file + rename for files and symlinks). */
export function writeState(target: string, state: EntryState, hints: WriteStateHints = {}): void {
  if (state.kind === 'absent') {
    removeFromDisk(target);
    return;
  }
  if (state.kind === 'dir') {
    const existing = lstatOrUndefined(target);
    if (existing !== undefined && !existing.isDirectory()) unlinkSync(target);
    mkdirSync(target, { recursive: true });
    chmodSync(target, state.mode & 0o7777);
    hints.folders?.add(target);
    return;
  }
  const folder = dirname(target);
  const found = hints.found;
  // an entry found at the target a moment ago means its folder is there
  if (found !== undefined && found.kind !== 'absent') hints.folders?.add(folder);
  if (hints.folders?.has(folder) !== true) {
    mkdirSync(folder, { recursive: true });
    hints.folders?.add(folder);
  }
  if (found?.kind !== 'file' && found?.kind !== 'symlink' && found?.kind !== 'absent' && lstatOrUndefined(target)?.isDirectory())
    removeEmptyFolder(target);
  const temp = join(folder, `.cairn-${process.pid}-${++tempCounter}.tmp`);
  try {
    if (state.kind === 'symlink') {
      symlinkSync(state.content.toString('utf8'), temp);
    } else {
      const fd = openSync(temp, 'w', state.mode & 0o7777);
      try {
        for (let offset = 0; offset < state.content.byteLength; ) offset += writeSync(fd, state.content, offset);
        fchmodSync(fd, state.mode & 0o7777);
        if (hints.durable !== false) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Removes a folder that is in the way of a file or symlink; one that still holds entries is never removed. */
function removeEmptyFolder(target: string): void {
  try {
    rmdirSync(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST')
      throw new AgentFSError('ENOTEMPTY', 'writeBack', target, 'a folder with contents is in the way; Cairn never deletes it', {
        cause: error,
      });
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
