import { type FSWatcher, lstatSync, watch } from 'node:fs';
import { join, sep } from 'node:path';

/**
 * Where one recursive watch of the root is the system's own light mechanism (FSEvents on macOS, Windows), it
 * covers the tree and folders are only recorded; elsewhere (Linux, where a recursive watch is one inotify watch
 * per file) each folder gets its own.
 */
const ONE_WATCH = process.platform === 'darwin' || process.platform === 'win32';

interface Watched {
  /** The folder's own watch; none for a folder the root's recursive watch covers. */
  watcher: FSWatcher | undefined;
  /** The folder's inode when its watch was set: a folder replaced under the same name needs a new one. */
  ino: number;
}

/**
 * One `fs.watch` per folder of the mirror, which on Linux is one inotify watch each: far lighter than a watch
 * per file, and ignored folders are never watched at all. Each change in a watched folder is reported as the
 * project-relative path of the entry it names (the folder itself when the system does not say). On macOS and
 * Windows one recursive watch of the root does the same.
 */
export class FolderWatches {
  private readonly watches = new Map<string, Watched>();
  private warnedFull = false;

  constructor(
    private readonly root: string,
    private readonly onChange: (rel: string) => void,
    private readonly onProblem: (message: string) => void,
  ) {}

  /** How many folders are watched. */
  get size(): number {
    return this.watches.size;
  }

  /** The inode of the folder watched at `rel`, if one is. */
  inoOf(rel: string): number | undefined {
    return this.watches.get(rel)?.ino;
  }

  /**
   * Watches the folder `rel` ('' for the root), unless it is watched already; a folder that cannot be watched is
   * left unwatched. `diskIno` is its inode when the caller has just listed its parent (a walk), saving an lstat;
   * a folder replaced since then is found at its parent's next event, as any replaced folder is.
   */
  add(rel: string, diskIno?: number): void {
    const path = rel === '' ? this.root : join(this.root, rel);
    let ino: number;
    try {
      ino = diskIno ?? lstatSync(path).ino;
    } catch {
      return;
    }
    const known = this.watches.get(rel);
    if (known?.ino === ino) return;
    if (known !== undefined) this.close(rel);
    if (ONE_WATCH && rel !== '') {
      this.watches.set(rel, { watcher: undefined, ino });
      return;
    }
    let watcher: FSWatcher;
    try {
      watcher = watch(path, { persistent: true, recursive: ONE_WATCH }, (_event, name) => {
        const named = ONE_WATCH && name !== null ? name.split(sep).join('/') : name;
        this.onChange(named === null ? rel : rel === '' ? named : `${rel}/${named}`);
      });
    } catch (error) {
      this.explain(rel, error);
      return;
    }
    watcher.on('error', () => this.close(rel));
    this.watches.set(rel, { watcher, ino });
  }

  /** Stops watching `rel` and every folder below it (it is gone, replaced, or left out now). */
  closeBelow(rel: string): void {
    const prefix = `${rel}/`;
    for (const key of [...this.watches.keys()]) if (key === rel || rel === '' || key.startsWith(prefix)) this.close(key);
  }

  /** Stops watching every folder not in `keep`. */
  retain(keep: ReadonlySet<string>): void {
    for (const key of [...this.watches.keys()]) if (!keep.has(key)) this.close(key);
  }

  /** Stops watching everything. */
  closeAll(): void {
    for (const key of [...this.watches.keys()]) this.close(key);
  }

  private close(rel: string): void {
    const found = this.watches.get(rel);
    if (found === undefined) return;
    this.watches.delete(rel);
    found.watcher?.close();
  }

  private explain(rel: string, error: unknown): void {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM') return;
    if (code === 'ENOSPC') {
      if (this.warnedFull) return;
      this.warnedFull = true;
      this.onProblem(
        `cannot watch ${rel === '' ? 'the project' : rel}: the system's limit of watched folders is reached (raise fs.inotify.max_user_watches); edits in folders not watched reach stable.db at the next sync`,
      );
      return;
    }
    this.onProblem(`cannot watch ${rel === '' ? 'the project' : rel}: ${(error as Error).message}`);
  }
}
