import { isUtf8 } from 'node:buffer';
import { lstatSync, readdirSync, type Dirent, type Stats as DiskStats } from 'node:fs';
import { join } from 'node:path';
import { AgentFSError } from './errors.js';
import type { IgnoreRules } from './ignore-rules.js';
import { toTimestamp } from './inode-store.js';
import { cacheVouches, ROW, type MirrorRow, type MirrorRows } from './mirror-rows.js';
import { kindOfMode, type EntryKind } from './mode.js';
import { describeName, unreadableReason, type SkippedEntry } from './skipped-entries.js';

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

/**
 * Walks the working tree from `start` once, comparing each directory's listing with the store's entries of that
 * directory (one query each; `onDirectory` is told of each directory just before it is listed): what the store
 * matches is counted and left unread, what it does not is planned, and what the store has that the tree does not
 * (or leaves out) is stale. Yields the number of entries seen now and then, so a caller can report progress and
 * let other work run. Only the root must be listable: a start below it that is not is listed in `skipped`.
 */
export function* scanTree(
  root: string,
  start: MirrorDir,
  startRules: IgnoreRules,
  rows: MirrorRows,
  onDirectory?: (rel: string) => void,
): Generator<number, TreeScan> {
  const scan: TreeScan = { planned: [], stale: [], skipped: [], files: 0, dirs: 0, unchanged: 0 };
  const pending: { dir: MirrorDir; rules: IgnoreRules; entry: PlannedEntry | undefined }[] = [
    { dir: start, rules: startRules, entry: undefined },
  ];
  let reported = 0;
  while (pending.length > 0) {
    const { dir, rules: outer, entry } = pending.pop()!;
    onDirectory?.(dir.rel);
    let listing: Listed[];
    try {
      listing = listDirectory(dir.rel === '' ? root : `${root}/${dir.rel}`);
    } catch (cause) {
      if (dir.parent === undefined)
        throw new AgentFSError('ENOENT', 'import', join(root, dir.rel), `cannot read directory: ${(cause as Error).message}`, { cause });
      if (dir !== start) {
        if (entry !== undefined) entry.dropped = true;
        scan.dirs--;
        if (dir.ino !== undefined) scan.stale.push({ rel: dir.rel, gone: false });
      }
      scan.skipped.push({ path: dir.rel, reason: `the folder cannot be listed: ${unreadableReason(cause)}` });
      continue;
    }
    const rules = dir === start || !listing.some((item) => item.name === '.gitignore') ? outer : outer.enter(root, dir.rel);
    const inStore = dir.ino === undefined ? undefined : rows.in(dir.ino);
    const leaveOut = (name: string, rel: string) => {
      if (inStore?.delete(name) === true) scan.stale.push({ rel, gone: false });
    };
    for (const { name, dirent, utf8 } of listing) {
      const rel = dir.rel === '' ? name : `${dir.rel}/${name}`;
      const isDir = dirent.isDirectory();
      if ((!isDir && !dirent.isFile() && !dirent.isSymbolicLink()) || rules.ignores(rel, isDir)) {
        leaveOut(name, rel);
        continue;
      }
      if (!utf8) {
        scan.skipped.push({ path: rel, reason: 'the name is not UTF-8' });
        continue;
      }
      let stats: DiskStats | undefined;
      try {
        stats = lstatSync(`${root}/${rel}`, { throwIfNoEntry: false });
      } catch (error) {
        scan.skipped.push({ path: rel, reason: unreadableReason(error) });
        leaveOut(name, rel);
        continue;
      }
      // gone since the listing: its store entry, if any, stays in `inStore` and is pruned as gone
      if (stats === undefined) continue;
      const row = inStore?.get(name);
      if (row !== undefined) inStore!.delete(name);
      const found = compareEntry(dir, name, stats, row);
      if (found === undefined) {
        if (row !== undefined) scan.stale.push({ rel, gone: false });
        continue;
      }
      if (found.kind === 'dir') scan.dirs++;
      else scan.files++;
      if (found.planned !== undefined) scan.planned.push(found.planned);
      else if (found.kind !== 'dir') scan.unchanged++;
      if (found.self !== undefined) pending.push({ dir: found.self, rules, entry: found.planned });
    }
    if (inStore !== undefined)
      for (const name of inStore.keys()) scan.stale.push({ rel: dir.rel === '' ? name : `${dir.rel}/${name}`, gone: true });
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

/**
 * Compares an entry on disk with its store row (undefined when the store has none); undefined for a kind the
 * store does not keep (a FIFO, a socket, a device). A file or link is left unread when the store's size,
 * mtime and mode match and the stat cache vouches for its bytes.
 */
export function compareEntry(dir: MirrorDir, name: string, stats: DiskStats, row: MirrorRow | undefined): ComparedEntry | undefined {
  const kind: EntryKind | undefined = stats.isFile()
    ? 'file'
    : stats.isDirectory()
      ? 'dir'
      : stats.isSymbolicLink()
        ? 'symlink'
        : undefined;
  if (kind === undefined) return undefined;
  const rel = dir.rel === '' ? name : `${dir.rel}/${name}`;
  const permissions = stats.mode & 0o7777;
  const same = row !== undefined && kindOfMode(row[ROW.mode]) === kind;
  if (kind === 'dir') {
    const self = mirrorDir(dir, name, permissions, same ? row[ROW.ino] : undefined);
    if (same && (row[ROW.mode] & 0o7777) === permissions) return { kind, self };
    return { kind, self, planned: { dir, name, rel, kind, stats: keptStat(stats), recheck: false, self } };
  }
  const statMatches = same && row[ROW.size] === stats.size && (kind === 'symlink' || sameFileStat(row, stats));
  if (statMatches && cacheVouches(row, stats)) return { kind };
  return { kind, planned: { dir, name, rel, kind, stats: keptStat(stats), recheck: statMatches } };
}

function keptStat(stats: DiskStats): DiskStat {
  return { mode: stats.mode, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, dev: stats.dev };
}

function sameFileStat(row: MirrorRow, stats: DiskStats): boolean {
  const mtime = toTimestamp(stats.mtimeMs);
  return row[ROW.mtime] === mtime.sec && row[ROW.mtimeNsec] === mtime.nsec && (row[ROW.mode] & 0o7777) === (stats.mode & 0o7777);
}

interface Listed {
  name: string;
  dirent: Dirent;
  utf8: boolean;
}

/**
 * A directory's entries with their names as text. Names are read as UTF-8; only a listing with a replacement
 * character in it is read again as bytes, to tell a name that is not UTF-8 (shown as `\xNN`) from one that
 * really holds U+FFFD.
 */
function listDirectory(path: string): Listed[] {
  const dirents = readdirSync(path, { withFileTypes: true });
  if (!dirents.some((dirent) => dirent.name.includes('\ufffd')))
    return dirents.map((dirent) => ({ name: dirent.name, dirent, utf8: true }));
  return readdirSync(path, { withFileTypes: true, encoding: 'buffer' }).map((dirent) => {
    const utf8 = isUtf8(dirent.name);
    return { name: utf8 ? dirent.name.toString('utf8') : describeName(dirent.name), dirent: dirent as unknown as Dirent, utf8 };
  });
}
