import { copyUp, ensureUpperDir, placeUpper, placeUpperTree, writeUpperFile } from './copy-up.js';
import { stateOf } from './entry-state.js';
import { AgentFSError } from './errors.js';
import type { FileSystem, RenameOptions, WriteFileOptions } from './file-system.js';
import { toBytes } from './file-system.js';
import { isProtectedPath } from './ignore-rules.js';
import type { Dentry, InodeStore } from './inode-store.js';
import type { MergeBaseLog } from './merge-base.js';
import { DEFAULT_DIR_MODE, modeFor, S_IFMT } from './mode.js';
import { listNames, lookupEntry, modeOfEntry, type OverlayEntry, statEntry, subtreePaths } from './overlay-view.js';
import { baseName, isWithin, joinPath, normalizePath, parentPath } from './path.js';
import type { Stats } from './stats.js';
import { assertReplaceable, type StoreFileSystem } from './store-fs.js';
import { TreeFileSystem } from './tree-file-system.js';
import type { Located, WalkableTree } from './tree-walk.js';
import { symlinkTargetPath } from './tree-walk.js';

const ROOT: Dentry = { ino: 1, mode: DEFAULT_DIR_MODE };
const MAX_WRITE_HOPS = 40;

/**
 * A copy-on-write file system over a base store: reads fall through, writes go to the upper store only,
 * deletions of base paths are whiteouts, and the first change to any path keeps its merge base.
 *
 * Invariants kept in the upper store: a whiteout's parent directory exists in the upper store, and no
 * whiteout sits where an upper entry lives. A directory created where a base directory was deleted hides
 * that directory's children with whiteouts of their own, so other AgentFS readers see the same tree.
 */
export class OverlayFileSystem extends TreeFileSystem<OverlayEntry> implements FileSystem {
  readonly upper: StoreFileSystem;
  readonly base: StoreFileSystem;
  private readonly up: InodeStore;
  private readonly down: InodeStore;
  private readonly mergeBase: MergeBaseLog;
  protected readonly tree: WalkableTree<OverlayEntry>;

  constructor(upper: StoreFileSystem, base: StoreFileSystem, mergeBase: MergeBaseLog) {
    super();
    const up = upper.inodes;
    const down = base.inodes;
    this.upper = upper;
    this.base = base;
    this.up = up;
    this.down = down;
    this.mergeBase = mergeBase;
    this.tree = {
      root: () => {
        up.validateCache();
        down.validateCache();
        return { upper: ROOT, base: ROOT };
      },
      lookup: (dir, dirPath, name) => lookupEntry(up, down, dir, dirPath, name),
      modeOf: modeOfEntry,
      linkTarget: (entry) => (entry.upper ? up.readlink(entry.upper.ino) : down.readlink(entry.base!.ino)),
    };
  }

  protected dataOf(entry: OverlayEntry): Buffer {
    return entry.upper ? this.up.readData(entry.upper.ino) : this.down.readData(entry.base!.ino);
  }

  protected rangeOf(entry: OverlayEntry, offset: number, length: number): Buffer {
    const [layer, ino] = entry.upper ? [this.up, entry.upper.ino] : [this.down, entry.base!.ino];
    return layer.readRange(ino, offset, length, layer.inode(ino).size);
  }

  protected namesIn(dir: Located<OverlayEntry>): string[] {
    if (this.kindOf(dir.entry) !== 'dir') throw new AgentFSError('ENOTDIR', 'scandir', dir.path);
    return listNames(this.up, this.down, dir);
  }

  protected statOf(entry: OverlayEntry): Stats {
    return statEntry(this.up, this.down, entry);
  }

  writeFile(path: string, data: string | Uint8Array, options: WriteFileOptions = {}): void {
    const bytes = toBytes(data, path);
    let target = normalizePath(path, 'write');
    this.checkNoFollow(target, 'write', options.noFollow, true);
    this.upper.transaction(() => {
      for (let hops = 0; ; hops++) {
        if (target === '/') throw new AgentFSError('EISDIR', 'write', target);
        const dir = this.ensureDir(parentPath(target), 'write');
        const name = baseName(target);
        const existing = lookupEntry(this.up, this.down, dir.entry, dir.path, name);
        const kind = existing === undefined ? undefined : this.kindOf(existing);
        if (kind === 'dir') throw new AgentFSError('EISDIR', 'write', target);
        if (kind === 'symlink') {
          if (hops >= MAX_WRITE_HOPS) throw new AgentFSError('ELOOP', 'write', target);
          target = symlinkTargetPath(dir.path, this.tree.linkTarget(existing!));
          continue;
        }
        const real = joinPath(dir.path, name);
        refuseProtected(real, 'write');
        this.keepMergeBase(real);
        writeUpperFile(this.upper, this.base, real, dir.path, existing, bytes, options);
        return;
      }
    });
  }

  /** Runs `fn` in one transaction of the upper store. */
  transaction<T>(fn: () => T): T {
    return this.upper.transaction(fn);
  }

  protected createDirIn(dir: Located<OverlayEntry>, name: string, mode?: number): Located<OverlayEntry> {
    const dirPath = dir.path;
    const path = joinPath(dirPath, name);
    refuseProtected(path, 'mkdir');
    this.keepMergeBase(path);
    const dirMode = modeFor('dir', mode);
    const ino = this.up.createInode(dirMode);
    this.up.link(ensureUpperDir(this.up, this.down, dirPath), name, ino);
    placeUpper(this.upper, this.base, path);
    return { entry: { upper: { ino, mode: dirMode } }, path };
  }

  protected removeEntry(found: Located<OverlayEntry>): void {
    this.keepMergeBaseTree(found);
    if (found.entry.upper !== undefined) {
      this.upper.rm(found.path, { recursive: true });
      this.up.removeWhiteoutsUnder(found.path);
    }
    if (found.entry.base !== undefined) {
      const parent = parentPath(found.path);
      ensureUpperDir(this.up, this.down, parent);
      this.up.addWhiteout(found.path, parent);
    }
  }

  rename(from: string, to: string, options: RenameOptions = {}): void {
    this.checkNoFollow(normalizePath(from, 'rename'), 'rename', options.noFollow, false);
    this.checkNoFollow(normalizePath(to, 'rename'), 'rename', options.noFollow, false);
    refuseProtected(normalizePath(to, 'rename'), 'rename');
    this.renameChecked(from, to);
  }

  private renameChecked(from: string, to: string): void {
    const source = normalizePath(from, 'rename');
    const target = normalizePath(to, 'rename');
    this.upper.transaction(() => {
      this.walkDir(parentPath(source), 'rename');
      const dstDir = this.walkDir(parentPath(target), 'rename');
      const src = this.walk(source, 'rename', false);
      if (src.path === '/') throw new AgentFSError('EBUSY', 'rename', source, 'cannot move the root');
      const dstPath = joinPath(dstDir.path, baseName(target));
      if (dstPath === src.path) return;
      if (isWithin(dstPath, src.path)) throw new AgentFSError('EINVAL', 'rename', target, 'cannot move a directory into itself');
      if (isWithin(src.path, dstPath))
        throw new AgentFSError('ENOTEMPTY', 'rename', target, 'cannot replace a directory with something inside it');
      const existing = lookupEntry(this.up, this.down, dstDir.entry, dstDir.path, baseName(target));
      if (existing !== undefined) {
        assertReplaceable(this.tree.modeOf(src.entry), { mode: this.tree.modeOf(existing) }, target);
        const replaced = { entry: existing, path: dstPath };
        if (this.kindOf(existing) === 'dir' && this.namesIn(replaced).length > 0) {
          throw new AgentFSError('ENOTEMPTY', 'rename', target);
        }
        this.removeEntry(replaced);
      }
      const relatives = subtreePaths(this.up, this.down, src);
      this.keepMergeBaseTree(src);
      for (const relative of relatives) this.keepMergeBase(relative === '' ? dstPath : joinPath(dstPath, relative));
      const dstUpperDir = ensureUpperDir(this.up, this.down, dstDir.path);
      if (src.entry.upper !== undefined && src.entry.base === undefined) {
        const srcUpperDir = ensureUpperDir(this.up, this.down, parentPath(src.path));
        this.up.moveDentry(srcUpperDir, baseName(src.path), dstUpperDir, baseName(dstPath));
        this.up.removeWhiteoutsUnder(src.path);
      } else {
        copyUp(this.up, this.down, src, dstUpperDir, baseName(dstPath));
        this.removeEntry(src);
      }
      placeUpperTree(this.upper, this.base, dstPath);
    });
  }

  link(existingPath: string, newPath: string): void {
    const target = normalizePath(newPath, 'link');
    this.upper.transaction(() => {
      const src = this.walk(existingPath, 'link', false);
      if (this.kindOf(src.entry) === 'dir') throw new AgentFSError('EPERM', 'link', existingPath, 'cannot hard-link a directory');
      const dir = this.walkDir(parentPath(target), 'link');
      const name = baseName(target);
      if (lookupEntry(this.up, this.down, dir.entry, dir.path, name) !== undefined) throw new AgentFSError('EEXIST', 'link', target);
      const real = joinPath(dir.path, name);
      refuseProtected(real, 'link');
      this.keepMergeBase(real);
      const srcParent = ensureUpperDir(this.up, this.down, parentPath(src.path));
      if (src.entry.upper === undefined) {
        this.keepMergeBase(src.path);
        copyUp(this.up, this.down, src, srcParent, baseName(src.path));
      }
      const upperIno = this.up.child(srcParent, baseName(src.path))!.ino;
      this.up.link(ensureUpperDir(this.up, this.down, dir.path), name, upperIno);
      placeUpper(this.upper, this.base, real);
    });
  }

  symlink(target: string, path: string): void {
    if (typeof target !== 'string' || target.length === 0 || target.includes('\0')) {
      throw new AgentFSError('EINVAL', 'symlink', path, 'symlink target must be a non-empty string without NUL');
    }
    const normalized = normalizePath(path, 'symlink');
    this.upper.transaction(() => {
      const dir = this.walkDir(parentPath(normalized), 'symlink');
      const name = baseName(normalized);
      if (lookupEntry(this.up, this.down, dir.entry, dir.path, name) !== undefined) throw new AgentFSError('EEXIST', 'symlink', normalized);
      const real = joinPath(dir.path, name);
      refuseProtected(real, 'symlink');
      this.keepMergeBase(real);
      const ino = this.up.createInode(modeFor('symlink'));
      this.up.setSymlink(ino, target);
      this.up.link(ensureUpperDir(this.up, this.down, dir.path), name, ino);
      placeUpper(this.upper, this.base, real);
    });
  }

  chmod(path: string, mode: number): void {
    this.upper.transaction(() => {
      const found = this.walk(path, 'chmod', true);
      this.keepMergeBase(found.path);
      const kind = this.kindOf(found.entry);
      if (found.entry.upper === undefined && kind !== 'dir') {
        copyUp(this.up, this.down, found, ensureUpperDir(this.up, this.down, parentPath(found.path)), baseName(found.path));
      }
      const ino =
        kind === 'dir'
          ? ensureUpperDir(this.up, this.down, found.path)
          : this.up.child(ensureUpperDir(this.up, this.down, parentPath(found.path)), baseName(found.path))!.ino;
      this.up.setMode(ino, (this.tree.modeOf(found.entry) & S_IFMT) | (mode & 0o7777));
    });
  }

  statfs(): { inodes: number; bytesUsed: number } {
    const upper = this.up.statfs();
    const base = this.down.statfs();
    return { inodes: upper.inodes + base.inodes, bytesUsed: upper.bytesUsed + base.bytesUsed };
  }

  private keepMergeBase(path: string): void {
    if (!this.mergeBase.has(path)) this.mergeBase.keep(path, stateOf(this.base, path));
  }

  private keepMergeBaseTree(located: Located<OverlayEntry>): void {
    for (const relative of subtreePaths(this.up, this.down, located))
      this.keepMergeBase(relative === '' ? located.path : joinPath(located.path, relative));
  }
}

/** An overlay never creates a protected name (`.git`, `.agentfs`, `.cairn`, …): accepting it would reach the live repository or Cairn's own files. */
function refuseProtected(path: string, syscall: string): void {
  if (isProtectedPath(path))
    throw new AgentFSError('EPERM', syscall, path, "a protected path (version control or Cairn's own files); an overlay never creates it");
}
