import { AgentFSError } from './errors.js';
import type { FileSystem, RenameOptions, WriteFileOptions } from './file-system.js';
import { toBytes } from './file-system.js';
import type { Dentry, InodeStore } from './inode-store.js';
import { toTimestamp } from './inode-store.js';
import { DEFAULT_DIR_MODE, kindOfMode, modeFor, S_IFMT } from './mode.js';
import { baseName, isWithin, joinPath, normalizePath, parentPath } from './path.js';
import { Stats } from './stats.js';
import { TreeFileSystem } from './tree-file-system.js';
import type { Located, WalkableTree } from './tree-walk.js';
import { symlinkTargetPath } from './tree-walk.js';

const ROOT: Dentry = { ino: 1, mode: DEFAULT_DIR_MODE };
const MAX_WRITE_HOPS = 40;

/** The file system of one AgentFS database. */
export class StoreFileSystem extends TreeFileSystem<Dentry> implements FileSystem {
  /** The inode layer, for code in this package that works below paths (overlay, accept, import). */
  readonly inodes: InodeStore;
  protected readonly tree: WalkableTree<Dentry>;
  private readonly inTransaction: <T>(fn: () => T) => T;

  constructor(inodes: InodeStore) {
    super();
    this.inodes = inodes;
    this.tree = {
      root: () => {
        inodes.validateCache();
        return ROOT;
      },
      lookup: (dir, _dirPath, name) => inodes.child(dir.ino, name),
      modeOf: (entry) => entry.mode,
      linkTarget: (entry) => inodes.readlink(entry.ino),
    };
    const transaction = inodes.db.transaction((fn: () => unknown) => fn());
    this.inTransaction = <T>(fn: () => T) => {
      try {
        return transaction(fn) as T;
      } catch (error) {
        inodes.invalidate();
        throw inodes.explain(error);
      }
    };
  }

  /** Runs `fn` in one transaction (a savepoint when nested). */
  override transaction<T>(fn: () => T): T {
    return this.inTransaction(fn);
  }

  writeFile(path: string, data: string | Uint8Array, options: WriteFileOptions = {}): void {
    const bytes = toBytes(data, path);
    const normalized = normalizePath(path, 'write');
    this.checkNoFollow(normalized, 'write', options.noFollow, true);
    this.transaction(() => this.writeAt(normalized, bytes, options, 0));
  }

  private writeAt(path: string, bytes: Uint8Array, options: WriteFileOptions, hops: number): void {
    if (path === '/') throw new AgentFSError('EISDIR', 'write', path);
    const dir = this.ensureDir(parentPath(path), 'write');
    const name = baseName(path);
    const existing = this.inodes.child(dir.entry.ino, name);
    const mtime = options.mtimeMs === undefined ? undefined : toTimestamp(options.mtimeMs);
    if (existing === undefined) {
      this.inodes.createFile(dir.entry.ino, name, modeFor('file', options.mode), bytes, mtime);
      return;
    }
    const kind = kindOfMode(existing.mode);
    if (kind === 'dir') throw new AgentFSError('EISDIR', 'write', path);
    if (kind === 'symlink') {
      if (hops >= MAX_WRITE_HOPS) throw new AgentFSError('ELOOP', 'write', path);
      const target = symlinkTargetPath(dir.path, this.inodes.readlink(existing.ino));
      this.writeAt(target, bytes, options, hops + 1);
      return;
    }
    this.inodes.writeData(existing.ino, bytes, mtime);
    if (options.mode !== undefined) this.inodes.setMode(existing.ino, modeFor('file', options.mode));
  }

  rename(from: string, to: string, options: RenameOptions = {}): void {
    const source = normalizePath(from, 'rename');
    const target = normalizePath(to, 'rename');
    this.checkNoFollow(source, 'rename', options.noFollow, false);
    this.checkNoFollow(target, 'rename', options.noFollow, false);
    this.transaction(() => {
      this.walkDir(parentPath(source), 'rename');
      const dstDir = this.walkDir(parentPath(target), 'rename');
      const src = this.walk(source, 'rename', false);
      if (src.path === '/') throw new AgentFSError('EBUSY', 'rename', source, 'cannot move the root');
      const dstName = baseName(target);
      const dstPath = joinPath(dstDir.path, dstName);
      if (dstPath === src.path) return;
      if (isWithin(dstPath, src.path)) throw new AgentFSError('EINVAL', 'rename', target, 'cannot move a directory into itself');
      if (isWithin(src.path, dstPath))
        throw new AgentFSError('ENOTEMPTY', 'rename', target, 'cannot replace a directory with something inside it');
      const existing = this.inodes.child(dstDir.entry.ino, dstName);
      if (existing !== undefined) {
        assertReplaceable(src.entry.mode, existing, target);
        if (kindOfMode(existing.mode) === 'dir' && this.inodes.hasChildren(existing.ino)) {
          throw new AgentFSError('ENOTEMPTY', 'rename', target);
        }
        this.inodes.unlink(dstDir.entry.ino, dstName, existing.ino);
      }
      const srcParent = this.walk(parentPath(src.path), 'rename', true);
      this.inodes.moveDentry(srcParent.entry.ino, baseName(src.path), dstDir.entry.ino, dstName);
      this.inodes.touch(srcParent.entry.ino);
      this.inodes.touch(dstDir.entry.ino);
    });
  }

  link(existingPath: string, newPath: string): void {
    const target = normalizePath(newPath, 'link');
    this.transaction(() => {
      const src = this.walk(existingPath, 'link', false);
      if (this.kindOf(src.entry) === 'dir') throw new AgentFSError('EPERM', 'link', existingPath, 'cannot hard-link a directory');
      const dir = this.walkDir(parentPath(target), 'link');
      const name = baseName(target);
      if (this.inodes.child(dir.entry.ino, name) !== undefined) throw new AgentFSError('EEXIST', 'link', target);
      this.inodes.link(dir.entry.ino, name, src.entry.ino);
    });
  }

  symlink(target: string, path: string): void {
    if (typeof target !== 'string' || target.length === 0 || target.includes('\0')) {
      throw new AgentFSError('EINVAL', 'symlink', path, 'symlink target must be a non-empty string without NUL');
    }
    const normalized = normalizePath(path, 'symlink');
    this.transaction(() => {
      const dir = this.walkDir(parentPath(normalized), 'symlink');
      const name = baseName(normalized);
      if (this.inodes.child(dir.entry.ino, name) !== undefined) throw new AgentFSError('EEXIST', 'symlink', normalized);
      const ino = this.inodes.createInode(modeFor('symlink'));
      this.inodes.setSymlink(ino, target);
      this.inodes.link(dir.entry.ino, name, ino);
    });
  }

  chmod(path: string, mode: number): void {
    this.transaction(() => {
      const { entry } = this.walk(path, 'chmod', true);
      this.inodes.setMode(entry.ino, (entry.mode & S_IFMT) | (mode & 0o7777));
    });
  }

  /** Sets a modification time (used by the project mirror to keep the working tree's times). */
  setMtime(path: string, mtimeMs: number): void {
    const { entry } = this.walk(path, 'utimes', false);
    this.inodes.setMtime(entry.ino, toTimestamp(mtimeMs));
  }

  statfs(): { inodes: number; bytesUsed: number } {
    return this.inodes.statfs();
  }

  protected dataOf(entry: Dentry): Buffer {
    return this.inodes.readData(entry.ino);
  }

  protected rangeOf(entry: Dentry, offset: number, length: number): Buffer {
    return this.inodes.readRange(entry.ino, offset, length, this.inodes.inode(entry.ino).size);
  }

  protected statOf(entry: Dentry): Stats {
    return new Stats(this.inodes.inode(entry.ino));
  }

  protected namesIn(dir: Located<Dentry>): string[] {
    return this.inodes.children(dir.entry.ino).map((child) => child.name);
  }

  protected createDirIn(dir: Located<Dentry>, name: string, mode?: number): Located<Dentry> {
    const dirMode = modeFor('dir', mode);
    const ino = this.inodes.createInode(dirMode);
    this.inodes.link(dir.entry.ino, name, ino);
    return { entry: { ino, mode: dirMode }, path: joinPath(dir.path, name) };
  }

  /** Unlinks an entry and, for a directory, everything below it. */
  protected removeEntry(found: Located<Dentry>): void {
    if (this.kindOf(found.entry) === 'dir') {
      for (const child of this.inodes.children(found.entry.ino)) this.removeEntry({ entry: child, path: joinPath(found.path, child.name) });
    }
    const parent = this.walk(parentPath(found.path), 'rm', true);
    this.inodes.unlink(parent.entry.ino, baseName(found.path), found.entry.ino);
  }
}

/** POSIX rename rules for an existing destination. */
export function assertReplaceable(sourceMode: number, existing: { mode: number }, target: string): void {
  const sourceIsDir = kindOfMode(sourceMode) === 'dir';
  const targetIsDir = kindOfMode(existing.mode) === 'dir';
  if (sourceIsDir && !targetIsDir) throw new AgentFSError('ENOTDIR', 'rename', target);
  if (!sourceIsDir && targetIsDir) throw new AgentFSError('EISDIR', 'rename', target);
}
