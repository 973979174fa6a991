import { stateOf } from './entry-state.js';
import { AgentFSError } from './errors.js';
import { isProtectedPath } from './ignore-rules.js';
import type { FileSystem, WriteFileOptions, RenameOptions } from './file-system.js';
import { TreeFileSystem } from './tree-file-system.js';
import { toBytes } from './file-system.js';
import type { Dentry, InodeStore } from './inode-store.js';
import { toTimestamp } from './inode-store.js';
import type { MergeBaseLog } from './merge-base.js';
import { DEFAULT_DIR_MODE, kindOfMode, modeFor, S_IFMT } from './mode.js';
import { baseName, isWithin, joinPath, normalizePath, parentPath, splitPath } from './path.js';
import { Stats } from './stats.js';
import { assertReplaceable, type StoreFileSystem } from './store-fs.js';
import type { Located, WalkableTree } from './tree-walk.js';
import { symlinkTargetPath } from './tree-walk.js';

/** A path as the overlay sees it: its upper entry, and the base entry at the same path if one shows through. */
export interface OverlayEntry {
  upper?: Dentry | undefined;
  base?: Dentry | undefined;
}

const ROOT: Dentry = { ino: 1, mode: DEFAULT_DIR_MODE };

/** Added to the inode number of an entry that exists only in the upper store (2^40: far above any base inode). */
export const UPPER_ONLY_INO = 2 ** 40;
const MAX_WRITE_HOPS = 40;
const isDir = (entry: Dentry | undefined): entry is Dentry => entry !== undefined && kindOfMode(entry.mode) === 'dir';

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
    this.upper = upper;
    this.base = base;
    this.up = upper.inodes;
    this.down = base.inodes;
    this.mergeBase = mergeBase;
    this.tree = {
      root: () => {
        this.up.validateCache();
        this.down.validateCache();
        return { upper: ROOT, base: ROOT };
      },
      lookup: (dir, dirPath, name) => this.lookup(dir, dirPath, name),
      modeOf: (entry) => (entry.upper ?? entry.base)!.mode,
      linkTarget: (entry) => (entry.upper ? this.up.readlink(entry.upper.ino) : this.down.readlink(entry.base!.ino)),
    };
  }

  private lookup(dir: OverlayEntry, dirPath: string, name: string): OverlayEntry | undefined {
    const upperChild = isDir(dir.upper) ? this.up.child(dir.upper.ino, name) : undefined;
    const baseDir = isDir(dir.base) && (dir.upper === undefined || isDir(dir.upper)) ? dir.base : undefined;
    let baseChild: Dentry | undefined;
    if (baseDir !== undefined && (upperChild !== undefined || dir.upper === undefined || !this.up.hasWhiteout(joinPath(dirPath, name)))) {
      baseChild = this.down.child(baseDir.ino, name);
    }
    if (upperChild === undefined && baseChild === undefined) return undefined;
    return { upper: upperChild, base: baseChild };
  }

  protected dataOf(entry: OverlayEntry): Buffer {
    return entry.upper ? this.up.readData(entry.upper.ino) : this.down.readData(entry.base!.ino);
  }

  protected rangeOf(entry: OverlayEntry, offset: number, length: number): Buffer {
    const [layer, ino] = entry.upper ? [this.up, entry.upper.ino] : [this.down, entry.base!.ino];
    return layer.readRange(ino, offset, length, layer.inode(ino).size);
  }

  protected namesIn(dir: Located<OverlayEntry>): string[] {
    const { upper, base } = dir.entry;
    if (this.kindOf(dir.entry) !== 'dir') throw new AgentFSError('ENOTDIR', 'scandir', dir.path);
    const names = new Set<string>();
    if (upper !== undefined) for (const child of this.up.children(upper.ino)) names.add(child.name);
    if (isDir(base) && (upper === undefined || isDir(upper))) {
      const hidden = upper === undefined ? undefined : new Set(this.up.whiteoutsIn(dir.path));
      for (const child of this.down.children(base.ino)) {
        if (!hidden?.has(joinPath(dir.path, child.name))) names.add(child.name);
      }
    }
    return [...names].sort(compareNames);
  }

  /**
   * Upper entries copied up from the base report the base inode number, as the format requires. Entries that
   * exist only in the upper store report their inode number offset by UPPER_ONLY_INO, so no two entries of the
   * overlay report the same number unless they are hard links of one another.
   */
  protected statOf(entry: OverlayEntry): Stats {
    if (entry.upper === undefined) return new Stats(this.down.inode(entry.base!.ino));
    const row = this.up.inode(entry.upper.ino);
    if (row.ino === ROOT.ino) return new Stats(row);
    const origin = this.up.origin(entry.upper.ino);
    return new Stats({ ...row, ino: origin ?? UPPER_ONLY_INO + row.ino });
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
        const existing = this.lookup(dir.entry, dir.path, name);
        const kind = existing === undefined ? undefined : this.kindOf(existing);
        if (kind === 'dir') throw new AgentFSError('EISDIR', 'write', target);
        if (kind === 'symlink') {
          if (hops >= MAX_WRITE_HOPS) throw new AgentFSError('ELOOP', 'write', target);
          target = symlinkTargetPath(dir.path, this.tree.linkTarget(existing!));
          continue;
        }
        refuseProtected(joinPath(dir.path, name), 'write');
        this.writeResolved(joinPath(dir.path, name), dir.path, existing, bytes, options);
        return;
      }
    });
  }

  private writeResolved(
    path: string,
    dirPath: string,
    existing: OverlayEntry | undefined,
    bytes: Uint8Array,
    options: WriteFileOptions,
  ): void {
    this.keepMergeBase(path);
    const mtime = options.mtimeMs === undefined ? undefined : toTimestamp(options.mtimeMs);
    if (existing?.upper !== undefined) {
      this.up.writeData(existing.upper.ino, bytes, mtime);
      if (options.mode !== undefined) this.up.setMode(existing.upper.ino, modeFor('file', options.mode));
      return;
    }
    const permissions = options.mode ?? (existing?.base === undefined ? undefined : existing.base.mode & 0o7777);
    const ino = this.up.createInode(modeFor('file', permissions));
    this.up.link(this.upperDir(dirPath), baseName(path), ino);
    if (existing?.base !== undefined) this.up.setOrigin(ino, existing.base.ino);
    this.up.writeData(ino, bytes, mtime, true);
    this.placeUpper(path);
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
    this.up.link(this.upperDir(dirPath), name, ino);
    this.placeUpper(path);
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
      this.upperDir(parent);
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
      const existing = this.lookup(dstDir.entry, dstDir.path, baseName(target));
      if (existing !== undefined) {
        assertReplaceable(this.tree.modeOf(src.entry), { mode: this.tree.modeOf(existing) }, target);
        const replaced = { entry: existing, path: dstPath };
        if (this.kindOf(existing) === 'dir' && this.namesIn(replaced).length > 0) {
          throw new AgentFSError('ENOTEMPTY', 'rename', target);
        }
        this.removeEntry(replaced);
      }
      const relatives = this.subtreePaths(src);
      this.keepMergeBaseTree(src);
      for (const relative of relatives) this.keepMergeBase(relative === '' ? dstPath : joinPath(dstPath, relative));
      const dstUpperDir = this.upperDir(dstDir.path);
      if (src.entry.upper !== undefined && src.entry.base === undefined) {
        const srcUpperDir = this.upperDir(parentPath(src.path));
        this.up.moveDentry(srcUpperDir, baseName(src.path), dstUpperDir, baseName(dstPath));
        this.up.removeWhiteoutsUnder(src.path);
      } else {
        this.copyUp(src, dstUpperDir, baseName(dstPath));
        this.removeEntry(src);
      }
      this.placeUpperTree(dstPath);
    });
  }

  /** Copies an entry as the overlay sees it into a new upper entry; base files keep their origin inode. */
  private copyUp(src: Located<OverlayEntry>, upperParent: number, name: string): void {
    const entry = src.entry;
    const mode = this.tree.modeOf(entry);
    const layer = entry.upper ? this.up : this.down;
    const sourceIno = (entry.upper ?? entry.base)!.ino;
    const row = layer.inode(sourceIno);
    const ino = this.up.createInode(mode, { sec: row.mtime, nsec: row.mtime_nsec });
    this.up.link(upperParent, name, ino);
    const origin = entry.upper ? this.up.origin(sourceIno) : sourceIno;
    if (origin !== undefined) this.up.setOrigin(ino, origin);
    const kind = kindOfMode(mode);
    if (kind === 'symlink') this.up.setSymlink(ino, layer.readlink(sourceIno));
    else if (kind === 'file') this.up.writeData(ino, layer.readData(sourceIno), { sec: row.mtime, nsec: row.mtime_nsec });
    else
      for (const child of this.namesIn(src))
        this.copyUp({ entry: this.lookup(entry, src.path, child)!, path: joinPath(src.path, child) }, ino, child);
  }

  link(existingPath: string, newPath: string): void {
    const target = normalizePath(newPath, 'link');
    this.upper.transaction(() => {
      const src = this.walk(existingPath, 'link', false);
      if (this.kindOf(src.entry) === 'dir') throw new AgentFSError('EPERM', 'link', existingPath, 'cannot hard-link a directory');
      const dir = this.walkDir(parentPath(target), 'link');
      const name = baseName(target);
      if (this.lookup(dir.entry, dir.path, name) !== undefined) throw new AgentFSError('EEXIST', 'link', target);
      const real = joinPath(dir.path, name);
      refuseProtected(real, 'link');
      this.keepMergeBase(real);
      const srcParent = this.upperDir(parentPath(src.path));
      if (src.entry.upper === undefined) {
        this.keepMergeBase(src.path);
        this.copyUp(src, srcParent, baseName(src.path));
      }
      const upperIno = this.up.child(srcParent, baseName(src.path))!.ino;
      this.up.link(this.upperDir(dir.path), name, upperIno);
      this.placeUpper(real);
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
      if (this.lookup(dir.entry, dir.path, name) !== undefined) throw new AgentFSError('EEXIST', 'symlink', normalized);
      const real = joinPath(dir.path, name);
      refuseProtected(real, 'symlink');
      this.keepMergeBase(real);
      const ino = this.up.createInode(modeFor('symlink'));
      this.up.setSymlink(ino, target);
      this.up.link(this.upperDir(dir.path), name, ino);
      this.placeUpper(real);
    });
  }

  chmod(path: string, mode: number): void {
    this.upper.transaction(() => {
      const found = this.walk(path, 'chmod', true);
      this.keepMergeBase(found.path);
      const kind = this.kindOf(found.entry);
      if (found.entry.upper === undefined && kind !== 'dir') {
        this.copyUp(found, this.upperDir(parentPath(found.path)), baseName(found.path));
      }
      const ino =
        kind === 'dir' ? this.upperDir(found.path) : this.up.child(this.upperDir(parentPath(found.path)), baseName(found.path))!.ino;
      this.up.setMode(ino, (this.tree.modeOf(found.entry) & S_IFMT) | (mode & 0o7777));
    });
  }

  statfs(): { inodes: number; bytesUsed: number } {
    const upper = this.up.statfs();
    const base = this.down.statfs();
    return { inodes: upper.inodes + base.inodes, bytesUsed: upper.bytesUsed + base.bytesUsed };
  }

  /** The upper inode of directory `path` (visible as a directory), copying up missing ancestors. */
  private upperDir(path: string): number {
    let ino = 1;
    let baseIno: number | undefined = 1;
    let current = '/';
    for (const name of splitPath(path)) {
      current = joinPath(current, name);
      const upperChild = this.up.child(ino, name);
      const hidden = upperChild === undefined && this.up.hasWhiteout(current);
      const baseChild: Dentry | undefined = baseIno === undefined || hidden ? undefined : this.down.child(baseIno, name);
      const baseDir: Dentry | undefined = isDir(baseChild) ? baseChild : undefined;
      if (upperChild !== undefined) {
        if (!isDir(upperChild)) throw new AgentFSError('ENOTDIR', 'copyup', current);
        ino = upperChild.ino;
        baseIno = baseDir?.ino;
        continue;
      }
      if (baseDir === undefined) throw new AgentFSError('ENOENT', 'copyup', current);
      const row = this.down.inode(baseDir.ino);
      const created = this.up.createInode(baseDir.mode, { sec: row.mtime, nsec: row.mtime_nsec });
      this.up.link(ino, name, created);
      this.up.setOrigin(created, baseDir.ino);
      ino = created;
      baseIno = baseDir.ino;
    }
    return ino;
  }

  /** After a new upper entry lands on a whited-out path: drop the whiteout, and hide a base directory's children. */
  private placeUpper(path: string): void {
    if (!this.up.hasWhiteout(path)) return;
    this.up.removeWhiteout(path);
    const upperEntry = this.upper.locate(path, false);
    if (upperEntry === undefined || !isDir(upperEntry.entry)) return;
    const baseEntry = this.base.locate(path, false);
    if (baseEntry === undefined || !isDir(baseEntry.entry)) return;
    for (const child of this.down.children(baseEntry.entry.ino)) this.up.addWhiteout(joinPath(path, child.name), path);
  }

  private placeUpperTree(path: string): void {
    this.placeUpper(path);
    const upperEntry = this.upper.locate(path, false);
    if (upperEntry === undefined || !isDir(upperEntry.entry)) return;
    for (const child of this.up.children(upperEntry.entry.ino)) this.placeUpperTree(joinPath(path, child.name));
  }

  /** Relative paths of an entry's subtree, the entry itself as ''. */
  private subtreePaths(located: Located<OverlayEntry>, prefix = ''): string[] {
    const out = [prefix];
    if (this.kindOf(located.entry) !== 'dir') return out;
    for (const name of this.namesIn(located)) {
      const child = { entry: this.lookup(located.entry, located.path, name)!, path: joinPath(located.path, name) };
      out.push(...this.subtreePaths(child, prefix === '' ? name : `${prefix}/${name}`));
    }
    return out;
  }

  private keepMergeBase(path: string): void {
    if (!this.mergeBase.has(path)) this.mergeBase.keep(path, stateOf(this.base, path));
  }

  private keepMergeBaseTree(located: Located<OverlayEntry>): void {
    for (const relative of this.subtreePaths(located))
      this.keepMergeBase(relative === '' ? located.path : joinPath(located.path, relative));
  }
}

/** Directory listings sort by UTF-8 bytes, as SQLite's default collation does. */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** An overlay never creates a protected name (`.git`, `.agentfs`, `.cairn`, …): accepting it would reach the live repository or Cairn's own files. */
function refuseProtected(path: string, syscall: string): void {
  if (isProtectedPath(path))
    throw new AgentFSError('EPERM', syscall, path, "a protected path (version control or Cairn's own files); an overlay never creates it");
}
