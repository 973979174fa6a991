import type { Dentry, InodeStore } from './inode-store.js';
import { kindOfMode } from './mode.js';
import { joinPath } from './path.js';
import { Stats } from './stats.js';
import type { Located } from './tree-walk.js';

/** A path as the overlay sees it: its upper entry, and the base entry at the same path if one shows through. */
export interface OverlayEntry {
  upper?: Dentry | undefined;
  base?: Dentry | undefined;
}

/** Added to the inode number of an entry that exists only in the upper store (2^40: far above any base inode). */
export const UPPER_ONLY_INO = 2 ** 40;
const ROOT_INO = 1;

/** True when `entry` exists and is a directory. */
export function isDir(entry: Dentry | undefined): entry is Dentry {
  return entry !== undefined && kindOfMode(entry.mode) === 'dir';
}

/** The mode of an overlay entry: its upper entry's when it has one, else its base entry's. */
export function modeOfEntry(entry: OverlayEntry): number {
  return (entry.upper ?? entry.base)!.mode;
}

/**
 * Child `name` of overlay directory `dir` (at `dirPath`) in the upper store `up` over the base store `down`.
 * A base child shows through only under a base directory the upper one does not replace, and only where no
 * whiteout hides it (none is looked up where an upper child lives or the upper directory is missing: the upper
 * store keeps no whiteout there).
 */
export function lookupEntry(up: InodeStore, down: InodeStore, dir: OverlayEntry, dirPath: string, name: string): OverlayEntry | undefined {
  const upperChild = isDir(dir.upper) ? up.child(dir.upper.ino, name) : undefined;
  const baseDir = isDir(dir.base) && (dir.upper === undefined || isDir(dir.upper)) ? dir.base : undefined;
  let baseChild: Dentry | undefined;
  if (baseDir !== undefined && (upperChild !== undefined || dir.upper === undefined || !up.hasWhiteout(joinPath(dirPath, name)))) {
    baseChild = down.child(baseDir.ino, name);
  }
  if (upperChild === undefined && baseChild === undefined) return undefined;
  return { upper: upperChild, base: baseChild };
}

/** The names in overlay directory `dir`: its upper children and the base children no whiteout hides, sorted by UTF-8 bytes. */
export function listNames(up: InodeStore, down: InodeStore, dir: Located<OverlayEntry>): string[] {
  const { upper, base } = dir.entry;
  const names = new Set<string>();
  if (upper !== undefined) for (const child of up.children(upper.ino)) names.add(child.name);
  if (isDir(base) && (upper === undefined || isDir(upper))) {
    const hidden = upper === undefined ? undefined : new Set(up.whiteoutsIn(dir.path));
    for (const child of down.children(base.ino)) {
      if (!hidden?.has(joinPath(dir.path, child.name))) names.add(child.name);
    }
  }
  return [...names].sort(compareNames);
}

/**
 * The stats of an overlay entry. Upper entries copied up from the base report the base inode number, as the
 * format requires. Entries that exist only in the upper store report their inode number offset by
 * UPPER_ONLY_INO, so no two entries of the overlay report the same number unless they are hard links of one another.
 */
export function statEntry(up: InodeStore, down: InodeStore, entry: OverlayEntry): Stats {
  if (entry.upper === undefined) return new Stats(down.inode(entry.base!.ino));
  const row = up.inode(entry.upper.ino);
  if (row.ino === ROOT_INO) return new Stats(row);
  const origin = up.origin(entry.upper.ino);
  return new Stats({ ...row, ino: origin ?? UPPER_ONLY_INO + row.ino });
}

/** Relative paths of an overlay entry's subtree, the entry itself as ''. */
export function subtreePaths(up: InodeStore, down: InodeStore, located: Located<OverlayEntry>, prefix = ''): string[] {
  const out = [prefix];
  if (kindOfMode(modeOfEntry(located.entry)) !== 'dir') return out;
  for (const name of listNames(up, down, located)) {
    const child = { entry: lookupEntry(up, down, located.entry, located.path, name)!, path: joinPath(located.path, name) };
    out.push(...subtreePaths(up, down, child, prefix === '' ? name : `${prefix}/${name}`));
  }
  return out;
}

/** Directory listings sort by UTF-8 bytes, as SQLite's default collation does. */
export function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
