import { join } from 'node:path';
import { AgentFSError } from './errors.js';
import { type FolderLister, listerHere } from './folder-lister.js';
import { GONE, LISTED, STAT_NUMBERS, UNSTATABLE } from './folder-listing.js';
import type { IgnoreRules } from './ignore-rules.js';
import { isTimestamp } from './inode-store.js';
import { cacheVouches, type MirrorRow, type MirrorRows, ROW } from './mirror-rows.js';
import { type EntryKind, kindOfMode, S_IFDIR, S_IFLNK, S_IFMT, S_IFREG } from './mode.js';
import { type SkippedEntry, unreadableReason } from './skipped-entries.js';

/** A directory of the working tree as an import walks it; `ino` is its store inode once known. */
export interface MirrorDir {
  readonly rel: string;
  readonly name: string;
  readonly parent: MirrorDir | undefined;
  /** Permission bits on disk, for creating it in the store. */
  readonly permissions: number;
  ino: number | undefined;
  /** The write batch in which `ino` was last confirmed (see `MirrorWriter`). */
  confirmedIn: number;
  /** The write batch that created it in the store: while that batch lasts, nothing else is in it. */
  createdIn: number;
}

/** The part of a disk entry's stat an import keeps (a plan holds one per entry to import, so it stays small). */
export interface DiskStat {
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly dev: number;
}

/** An entry of the working tree the store does not match, or whose bytes the stat cache cannot vouch for. */
export interface PlannedEntry {
  readonly dir: MirrorDir;
  readonly name: string;
  readonly rel: string;
  readonly kind: EntryKind;
  readonly stats: DiskStat;
  /** Its stat matches the store: it is read only because the stat cache cannot vouch for its bytes. */
  readonly recheck: boolean;
  /** The directory itself, for a folder. */
  readonly self?: MirrorDir;
  /** A folder found unlistable when its turn came: left out. */
  dropped?: boolean;
}

/** A store entry to take out: gone from disk, or there but left out (ignored, unreadable, of a kind not kept). */
export interface StaleEntry {
  readonly rel: string;
  readonly gone: boolean;
}

/** What a walk of the working tree found, compared with the store. */
export interface TreeScan {
  planned: PlannedEntry[];
  stale: StaleEntry[];
  skipped: SkippedEntry[];
  files: number;
  dirs: number;
  /** Files and links the store already matches, left unread. */
  unchanged: number;
}

/** The root of a store's mirror, as the first `MirrorDir`. */
export function mirrorRoot(): MirrorDir {
  return { rel: '', name: '', parent: undefined, permissions: 0o755, ino: 1, confirmedIn: -1, createdIn: -1 };
}

/** A directory below `parent` on disk, its store inode not known yet. */
export function mirrorDir(parent: MirrorDir, name: string, permissions: number, ino?: number): MirrorDir {
  return { rel: parent.rel === '' ? name : `${parent.rel}/${name}`, name, parent, permissions, ino, confirmedIn: -1, createdIn: -1 };
}

/** How `scanTree` walks. */
export interface ScanOptions {
  /**
   * Told of each directory before it is listed, with its inode on disk when its parent's listing gave it (all but
   * the walk's start).
   */
  onDirectory?: ((rel: string, diskIno?: number) => void) | undefined;
  /** Lists the folders (by default on the walk's own thread). */
  lister?: FolderLister;
  /** Reads the store's rows of every directory at once, while the first folder is listed (a whole import). */
  readAllRows?: boolean;
}

/**
 * Walks the working tree from `start` once, comparing each directory's listing with the store's entries of that
 * directory (one query each, or one for all): what the store matches is counted and left unread, what it does not
 * is planned, and what the store has that the tree does not (or leaves out) is stale. Folders are listed by `lister` in the order the walk asks for them (breadth first),
 * each asked for as soon as its parent is read, so a lister on another thread lists ahead of the comparing.
 * Yields the number of entries seen now and then, so a caller can report progress and let other work run. Only
 * the root must be listable: a start below it that is not is listed in `skipped`.
 */
export function* scanTree(
  root: string,
  start: MirrorDir,
  startRules: IgnoreRules,
  rows: MirrorRows,
  options: ScanOptions = {},
): Generator<number, TreeScan> {
  const { onDirectory, lister = listerHere(root) } = options;
  const scan: TreeScan = { planned: [], stale: [], skipped: [], files: 0, dirs: 0, unchanged: 0 };
  const pending: ({ dir: MirrorDir; rules: IgnoreRules; entry: PlannedEntry | undefined; diskIno?: number } | undefined)[] = [];
  const ask = (folders: typeof pending) => {
    for (const folder of folders) onDirectory?.(folder!.dir.rel, folder!.diskIno);
    lister.request(folders.map((folder) => folder!.dir.rel));
    pending.push(...folders);
  };
  ask([{ dir: start, rules: startRules, entry: undefined }]);
  // while the first folder is listed
  if (options.readAllRows === true) rows.readAll();
  let reported = 0;
  for (let head = 0; head < pending.length; head++) {
    const { dir, rules: outer, entry } = pending[head]!;
    pending[head] = undefined;
    const listing = lister.next();
    if (listing.error !== undefined) {
      const cause = listing.error;
      if (dir.parent === undefined)
        throw new AgentFSError('ENOENT', 'import', join(root, dir.rel), `cannot read directory: ${cause.message}`, { cause });
      if (dir !== start) {
        if (entry !== undefined) entry.dropped = true;
        scan.dirs--;
        if (dir.ino !== undefined) scan.stale.push({ rel: dir.rel, gone: false });
      }
      scan.skipped.push({ path: dir.rel, reason: `the folder cannot be listed: ${unreadableReason(cause)}` });
      continue;
    }
    const { names, kinds, stats } = listing;
    const rules = dir === start || !names.includes('.gitignore') ? outer : outer.enter(root, dir.rel);
    const inStore = dir.ino === undefined ? undefined : rows.in(dir.ino);
    const leaveOut = (name: string, rel: string) => {
      if (inStore?.delete(name) === true) scan.stale.push({ rel, gone: false });
    };
    const below: typeof pending = [];
    // one stat object for the whole folder: `compareEntry` copies what it keeps, so an unchanged entry allocates nothing
    const found: Writable<DiskStat> = { mode: 0, size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0, dev: 0 };
    for (let index = 0; index < names.length; index++) {
      const name = names[index]!;
      const rel = dir.rel === '' ? name : `${dir.rel}/${name}`;
      const isDir = kinds[index] === LISTED.dir;
      const verdict = kinds[index] === LISTED.other ? 'ignored' : rules.verdict(rel, isDir);
      if (verdict === 'ignored') {
        leaveOut(name, rel);
        continue;
      }
      if (listing.notUtf8?.has(index) === true) {
        scan.skipped.push({ path: rel, reason: 'the name is not UTF-8' });
        continue;
      }
      const at = index * STAT_NUMBERS;
      if (stats[at] === UNSTATABLE) {
        scan.skipped.push({ path: rel, reason: unreadableReason(listing.failures.find((failure) => failure.index === index)) });
        leaveOut(name, rel);
        continue;
      }
      // gone since the listing: its store entry, if any, stays in `inStore` and is pruned as gone
      if (stats[at] === GONE) continue;
      found.mode = stats[at]!;
      found.size = stats[at + 1]!;
      found.mtimeMs = stats[at + 2]!;
      found.ctimeMs = stats[at + 3]!;
      found.ino = stats[at + 4]!;
      found.dev = stats[at + 5]!;
      const row = inStore?.get(name);
      if (row !== undefined) inStore!.delete(name);
      const compared = compareEntry(dir, name, found, row);
      if (compared === undefined) {
        if (row !== undefined) scan.stale.push({ rel, gone: false });
        continue;
      }
      if (compared.kind === 'dir') scan.dirs++;
      else scan.files++;
      if (compared.planned !== undefined) scan.planned.push(compared.planned);
      else if (compared.kind !== 'dir') scan.unchanged++;
      if (compared.self !== undefined) {
        const inner = verdict === 'tracked' ? rules.insideTracked() : rules;
        below.push({ dir: compared.self, rules: inner, entry: compared.planned, diskIno: found.ino });
      }
    }
    if (inStore !== undefined)
      for (const name of inStore.keys()) scan.stale.push({ rel: dir.rel === '' ? name : `${dir.rel}/${name}`, gone: true });
    if (below.length > 0) ask(below);
    const seen = scan.files + scan.dirs;
    if (seen - reported >= 2000) {
      reported = seen;
      yield seen;
    }
  }
  return scan;
}

/** How one entry on disk compares with its store row: its kind, the plan when it needs work, its `MirrorDir` when a folder. */
export interface ComparedEntry {
  kind: EntryKind;
  planned?: PlannedEntry;
  self?: MirrorDir;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** What `compareEntry` says of a file or link the store already matches (one object each: most entries are these). */
const UNCHANGED: { readonly [K in 'file' | 'symlink']: ComparedEntry } = Object.freeze({
  file: Object.freeze({ kind: 'file' }),
  symlink: Object.freeze({ kind: 'symlink' }),
});

/**
 * Compares an entry on disk with its store row (undefined when the store has none); undefined for a kind the
 * store does not keep (a FIFO, a socket, a device). A file or link is left unread when the store's size,
 * mtime and mode match and the stat cache vouches for its bytes. `stats` is read, never kept: a plan holds a copy.
 */
export function compareEntry(dir: MirrorDir, name: string, stats: DiskStat, row: MirrorRow | undefined): ComparedEntry | undefined {
  const type = stats.mode & S_IFMT;
  const kind: EntryKind | undefined = type === S_IFREG ? 'file' : type === S_IFDIR ? 'dir' : type === S_IFLNK ? 'symlink' : undefined;
  if (kind === undefined) return undefined;
  const permissions = stats.mode & 0o7777;
  const same = row !== undefined && kindOfMode(row[ROW.mode]) === kind;
  if (kind === 'dir') {
    const self = mirrorDir(dir, name, permissions, same ? row[ROW.ino] : undefined);
    if (same && (row[ROW.mode] & 0o7777) === permissions) return { kind, self };
    return { kind, self, planned: { dir, name, rel: self.rel, kind, stats: keptStat(stats), recheck: false, self } };
  }
  const statMatches = same && row[ROW.size] === stats.size && (kind === 'symlink' || sameFileStat(row, stats));
  if (statMatches && cacheVouches(row, stats)) return UNCHANGED[kind];
  const rel = dir.rel === '' ? name : `${dir.rel}/${name}`;
  return { kind, planned: { dir, name, rel, kind, stats: keptStat(stats), recheck: statMatches } };
}

function keptStat(stats: DiskStat): DiskStat {
  return { mode: stats.mode, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, dev: stats.dev };
}

function sameFileStat(row: MirrorRow, stats: DiskStat): boolean {
  return isTimestamp(stats.mtimeMs, row[ROW.mtime], row[ROW.mtimeNsec]) && (row[ROW.mode] & 0o7777) === (stats.mode & 0o7777);
}
