import { AgentFSError } from './errors.js';
import type { DirEntry, FileHandle, MkdirOptions, RmOptions } from './file-system.js';
import { type EntryKind, kindOfMode } from './mode.js';
import { baseName, normalizePath, parentPath } from './path.js';
import type { Stats } from './stats.js';
import type { Located, WalkableTree } from './tree-walk.js';
import { refuseLinks, resolveRealPath, tryWalkPath, walkPath } from './tree-walk.js';

/**
 * The read half of a file system over a walkable tree of entries `H`, shared by a store (one layer) and an
 * overlay (two). Subclasses say how an entry's bytes, stats and children are found, and add the writes.
 */
export abstract class TreeFileSystem<H> {
  protected abstract readonly tree: WalkableTree<H>;
  /** A file's (or symlink's) whole content. */
  protected abstract dataOf(entry: H): Buffer;
  /** `length` bytes from `offset`, fewer at the end. */
  protected abstract rangeOf(entry: H, offset: number, length: number): Buffer;
  protected abstract statOf(entry: H): Stats;
  /** Names in a directory, sorted by UTF-8 bytes. */
  protected abstract namesIn(dir: Located<H>): string[];
  /** Runs `fn` in one transaction of the database that takes the writes. */
  abstract transaction<T>(fn: () => T): T;
  /** Creates directory `name` in `dir`, which exists and has no entry of that name. */
  protected abstract createDirIn(dir: Located<H>, name: string, mode?: number): Located<H>;
  /** Removes an entry and everything below it. */
  protected abstract removeEntry(found: Located<H>): void;

  /** Resolves a path to its entry and real path, or undefined when it does not exist. */
  locate(path: string, followLast = true): Located<H> | undefined {
    return tryWalkPath(this.tree, normalizePath(path, 'lookup'), 'lookup', followLast);
  }

  /** The real path of `path`: every symbolic link followed; a missing last component is allowed; EPERM for a link out of the tree. */
  realpath(path: string): string {
    return resolveRealPath(this.tree, normalizePath(path, 'realpath'), 'realpath');
  }

  /** ELOOP when `noFollow` is asked and a component of the path is a symbolic link. */
  protected checkNoFollow(normalized: string, syscall: string, noFollow: boolean | undefined, includeLast: boolean): void {
    if (noFollow === true) refuseLinks(this.tree, normalized, syscall, includeLast);
  }

  readFile(path: string): Buffer;
  readFile(path: string, encoding: 'utf8' | 'utf-8'): string;
  readFile(path: string, encoding?: 'utf8' | 'utf-8'): Buffer | string;
  readFile(path: string, encoding?: 'utf8' | 'utf-8'): Buffer | string {
    const data = this.dataOf(this.walkFile(path));
    return encoding === undefined ? data : data.toString('utf8');
  }

  read(path: string, offset: number, length: number): Buffer {
    return this.open(path).pread(offset, length);
  }

  open(path: string): FileHandle {
    const entry = this.walkFile(path);
    return {
      pread: (offset: number, length: number): Buffer => {
        if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
          throw new AgentFSError('EINVAL', 'read', path, 'offset and length must be non-negative integers');
        }
        return this.rangeOf(entry, offset, length);
      },
      fstat: () => this.statOf(entry),
    };
  }

  readdir(path: string): string[] {
    return this.namesIn(this.walkDir(normalizePath(path, 'scandir'), 'scandir'));
  }

  readdirPlus(path: string): DirEntry[] {
    const dir = this.walkDir(normalizePath(path, 'scandir'), 'scandir');
    return this.namesIn(dir).map((name) => ({ name, stats: this.statOf(this.tree.lookup(dir.entry, dir.path, name)!) }));
  }

  stat(path: string): Stats {
    return this.statOf(this.walk(path, 'stat', true).entry);
  }

  lstat(path: string): Stats {
    return this.statOf(this.walk(path, 'lstat', false).entry);
  }

  exists(path: string): boolean {
    return tryWalkPath(this.tree, normalizePath(path, 'access'), 'access', true) !== undefined;
  }

  readlink(path: string): string {
    const { entry } = this.walk(path, 'readlink', false);
    if (this.kindOf(entry) !== 'symlink') throw new AgentFSError('EINVAL', 'readlink', path, 'not a symbolic link');
    return this.tree.linkTarget(entry);
  }

  mkdir(path: string, options: MkdirOptions = {}): void {
    const normalized = normalizePath(path, 'mkdir');
    this.checkNoFollow(normalized, 'mkdir', options.noFollow, true);
    this.transaction(() => {
      if (options.recursive) {
        this.ensureDir(normalized, 'mkdir', options.mode);
        return;
      }
      if (normalized === '/') throw new AgentFSError('EEXIST', 'mkdir', normalized);
      const dir = this.walkDir(parentPath(normalized), 'mkdir');
      const name = baseName(normalized);
      if (this.tree.lookup(dir.entry, dir.path, name) !== undefined) throw new AgentFSError('EEXIST', 'mkdir', normalized);
      this.createDirIn(dir, name, options.mode);
    });
  }

  rm(path: string, options: RmOptions = {}): void {
    const normalized = normalizePath(path, 'rm');
    this.checkNoFollow(normalized, 'rm', options.noFollow, false);
    this.transaction(() => {
      const found = options.force ? tryWalkPath(this.tree, normalized, 'rm', false) : walkPath(this.tree, normalized, 'rm', false);
      if (found === undefined) return;
      if (found.path === '/') throw new AgentFSError('EPERM', 'rm', normalized, 'cannot remove the root');
      if (this.kindOf(found.entry) === 'dir' && !options.recursive) throw new AgentFSError('EISDIR', 'rm', normalized);
      this.removeEntry(found);
    });
  }

  unlink(path: string): void {
    const normalized = normalizePath(path, 'unlink');
    this.transaction(() => {
      const found = this.walk(normalized, 'unlink', false);
      if (this.kindOf(found.entry) === 'dir') throw new AgentFSError('EISDIR', 'unlink', normalized);
      this.removeEntry(found);
    });
  }

  rmdir(path: string): void {
    const normalized = normalizePath(path, 'rmdir');
    this.transaction(() => {
      const found = this.walk(normalized, 'rmdir', false);
      if (this.kindOf(found.entry) !== 'dir') throw new AgentFSError('ENOTDIR', 'rmdir', normalized);
      if (found.path === '/') throw new AgentFSError('EPERM', 'rmdir', normalized, 'cannot remove the root');
      if (this.namesIn(found).length > 0) throw new AgentFSError('ENOTEMPTY', 'rmdir', normalized);
      this.removeEntry(found);
    });
  }

  /**
   * mkdir -p, following symlinks; returns the directory. A non-directory in the way is EEXIST when it is
   * the target of `mkdir` itself and ENOTDIR otherwise, as on Linux.
   */
  protected ensureDir(path: string, syscall: string, mode?: number, isTarget = true): Located<H> {
    const found = tryWalkPath(this.tree, path, syscall, true);
    if (found !== undefined) {
      if (this.kindOf(found.entry) !== 'dir') throw new AgentFSError(syscall === 'mkdir' && isTarget ? 'EEXIST' : 'ENOTDIR', syscall, path);
      return found;
    }
    const parent = this.ensureDir(parentPath(path), syscall, mode, false);
    const name = baseName(path);
    if (this.tree.lookup(parent.entry, parent.path, name) !== undefined) throw new AgentFSError('ENOTDIR', syscall, path);
    return this.createDirIn(parent, name, mode);
  }

  protected kindOf(entry: H): EntryKind {
    return kindOfMode(this.tree.modeOf(entry));
  }

  protected walk(path: string, syscall: string, followLast: boolean): Located<H> {
    return walkPath(this.tree, normalizePath(path, syscall), syscall, followLast);
  }

  /** Walks a normalised path that must name a directory. */
  protected walkDir(path: string, syscall: string): Located<H> {
    const found = walkPath(this.tree, path, syscall, true);
    if (this.kindOf(found.entry) !== 'dir') throw new AgentFSError('ENOTDIR', syscall, path);
    return found;
  }

  private walkFile(path: string): H {
    const { entry } = this.walk(path, 'open', true);
    if (this.kindOf(entry) === 'dir') throw new AgentFSError('EISDIR', 'open', path);
    return entry;
  }
}
