import { AgentFSError } from './errors.js';
import type { WriteFileOptions } from './file-system.js';
import type { Dentry, InodeStore } from './inode-store.js';
import { toTimestamp } from './inode-store.js';
import { kindOfMode, modeFor } from './mode.js';
import { isDir, listNames, lookupEntry, modeOfEntry, type OverlayEntry } from './overlay-view.js';
import { baseName, joinPath, splitPath } from './path.js';
import type { StoreFileSystem } from './store-fs.js';
import type { Located } from './tree-walk.js';

/** The upper inode of directory `path` (visible as a directory), copying up missing ancestors from the base. */
export function ensureUpperDir(up: InodeStore, down: InodeStore, path: string): number {
  let ino = 1;
  let baseIno: number | undefined = 1;
  let current = '/';
  for (const name of splitPath(path)) {
    current = joinPath(current, name);
    const upperChild = up.child(ino, name);
    const hidden = upperChild === undefined && up.hasWhiteout(current);
    const baseChild: Dentry | undefined = baseIno === undefined || hidden ? undefined : down.child(baseIno, name);
    const baseDir: Dentry | undefined = isDir(baseChild) ? baseChild : undefined;
    if (upperChild !== undefined) {
      if (!isDir(upperChild)) throw new AgentFSError('ENOTDIR', 'copyup', current);
      ino = upperChild.ino;
      baseIno = baseDir?.ino;
      continue;
    }
    if (baseDir === undefined) throw new AgentFSError('ENOENT', 'copyup', current);
    const row = down.inode(baseDir.ino);
    const created = up.createInode(baseDir.mode, { sec: row.mtime, nsec: row.mtime_nsec });
    up.link(ino, name, created);
    up.setOrigin(created, baseDir.ino);
    ino = created;
    baseIno = baseDir.ino;
  }
  return ino;
}

/** Copies an entry as the overlay sees it into a new upper entry `name` of `upperParent`; base files keep their origin inode. */
export function copyUp(up: InodeStore, down: InodeStore, src: Located<OverlayEntry>, upperParent: number, name: string): void {
  const entry = src.entry;
  const mode = modeOfEntry(entry);
  const layer = entry.upper ? up : down;
  const sourceIno = (entry.upper ?? entry.base)!.ino;
  const row = layer.inode(sourceIno);
  const ino = up.createInode(mode, { sec: row.mtime, nsec: row.mtime_nsec });
  up.link(upperParent, name, ino);
  const origin = entry.upper ? up.origin(sourceIno) : sourceIno;
  if (origin !== undefined) up.setOrigin(ino, origin);
  const kind = kindOfMode(mode);
  if (kind === 'symlink') up.setSymlink(ino, layer.readlink(sourceIno));
  else if (kind === 'file') up.writeData(ino, layer.readData(sourceIno), { sec: row.mtime, nsec: row.mtime_nsec });
  else
    for (const child of listNames(up, down, src))
      copyUp(up, down, { entry: lookupEntry(up, down, entry, src.path, child)!, path: joinPath(src.path, child) }, ino, child);
}

/**
 * Writes a file's bytes at `path` (in directory `dirPath`) of the upper store: over its upper copy, or into a new
 * upper file that keeps the permissions and the inode number (as origin) of the base file it replaces.
 */
export function writeUpperFile(
  upper: StoreFileSystem,
  base: StoreFileSystem,
  path: string,
  dirPath: string,
  existing: OverlayEntry | undefined,
  bytes: Uint8Array,
  options: WriteFileOptions,
): void {
  const up = upper.inodes;
  const mtime = options.mtimeMs === undefined ? undefined : toTimestamp(options.mtimeMs);
  if (existing?.upper !== undefined) {
    up.writeData(existing.upper.ino, bytes, mtime);
    if (options.mode !== undefined) up.setMode(existing.upper.ino, modeFor('file', options.mode));
    return;
  }
  const permissions = options.mode ?? (existing?.base === undefined ? undefined : existing.base.mode & 0o7777);
  const ino = up.createInode(modeFor('file', permissions));
  up.link(ensureUpperDir(up, base.inodes, dirPath), baseName(path), ino);
  if (existing?.base !== undefined) up.setOrigin(ino, existing.base.ino);
  up.writeData(ino, bytes, mtime, true);
  placeUpper(upper, base, path);
}

/** After a new upper entry lands on a whited-out path: drop the whiteout, and hide a base directory's children. */
export function placeUpper(upper: StoreFileSystem, base: StoreFileSystem, path: string): void {
  const up = upper.inodes;
  if (!up.hasWhiteout(path)) return;
  up.removeWhiteout(path);
  const upperEntry = upper.locate(path, false);
  if (upperEntry === undefined || !isDir(upperEntry.entry)) return;
  const baseEntry = base.locate(path, false);
  if (baseEntry === undefined || !isDir(baseEntry.entry)) return;
  for (const child of base.inodes.children(baseEntry.entry.ino)) up.addWhiteout(joinPath(path, child.name), path);
}

/** `placeUpper` for `path` and every upper entry below it. */
export function placeUpperTree(upper: StoreFileSystem, base: StoreFileSystem, path: string): void {
  placeUpper(upper, base, path);
  const upperEntry = upper.locate(path, false);
  if (upperEntry === undefined || !isDir(upperEntry.entry)) return;
  for (const child of upper.inodes.children(upperEntry.entry.ino)) placeUpperTree(upper, base, joinPath(path, child.name));
}
