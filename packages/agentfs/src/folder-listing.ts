import type { lstatSync, readdirSync } from 'node:fs';

/** Numbers kept per entry in a `FolderListing`'s `stats`: mode, size, mtimeMs, ctimeMs, ino, dev. */
export const STAT_NUMBERS = 6;
/** The mode recorded for an entry gone between the listing and its lstat. */
export const GONE = -1;
/** The mode recorded for an entry whose lstat failed (the reason is in `failures`). */
export const UNSTATABLE = -2;

/** An entry's kind as its folder's listing tells it, in `FolderListing.kinds`. */
export const LISTED = { other: 0, file: 1, dir: 2, symlink: 3 } as const;

/** What listing one folder of the working tree found: each name, its kind as listed, and its lstat. */
export interface FolderListing {
  rel: string;
  /** Set when the folder cannot be listed. */
  error?: { code?: string | undefined; message: string };
  /**
   * Set when a name in it may not be UTF-8 (it decodes with a replacement character): such a folder is listed
   * again by `listUndecoded`, which tells those names apart. Nothing else is filled in then.
   */
  undecoded?: boolean;
  names: string[];
  /** Per name, a `LISTED` kind. */
  kinds: Uint8Array;
  /** Per name, `STAT_NUMBERS` numbers; a mode of `GONE` or `UNSTATABLE` where the lstat found nothing. */
  stats: Float64Array;
  /** Why each `UNSTATABLE` entry's lstat failed. */
  failures: { index: number; code?: string | undefined; message: string }[];
  /** Indices of the names that are not UTF-8 (shown with `\xNN` escapes), from `listUndecoded` only. */
  notUtf8?: Set<number>;
}

/** The two calls a listing makes, passed in so that `listFolder` needs nothing from its module. */
export interface ListingCalls {
  readdirSync: typeof readdirSync;
  lstatSync: typeof lstatSync;
}

/** A name as the listing read it (bytes) made text, and whether it was UTF-8. */
export type NameDecoder = (raw: Buffer) => { name: string; utf8: boolean };

/**
 * Lists folder `rel` of `root` and lstats each entry. It uses only its parameters and the language's globals:
 * its source text also runs on a worker thread (see `FolderLister`), so it must stay that way (its numbers are
 * those of `LISTED`, `GONE` and `UNSTATABLE`, written out). Without `decode` names are read as text, and a
 * listing with a replacement character in a name comes back `undecoded`; with it, names are read as bytes and
 * those that are not UTF-8 are marked in `notUtf8` and not stat'ed.
 */
export function listFolder(fs: ListingCalls, root: string, rel: string, decode?: NameDecoder): FolderListing {
  const path = rel === '' ? root : `${root}/${rel}`;
  const empty = { rel, names: [], kinds: new Uint8Array(0), stats: new Float64Array(0), failures: [] };
  let dirents: import('node:fs').Dirent<string | Buffer>[];
  try {
    dirents =
      decode === undefined
        ? fs.readdirSync(path, { withFileTypes: true })
        : fs.readdirSync(path, { withFileTypes: true, encoding: 'buffer' });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return { ...empty, error: { code, message: String(message) } };
  }
  const count = dirents.length;
  const names: string[] = new Array(count);
  const kinds = new Uint8Array(count);
  const stats = new Float64Array(count * 6);
  const failures: FolderListing['failures'] = [];
  const notUtf8 = decode === undefined ? undefined : new Set<number>();
  for (let index = 0; index < count; index++) {
    const dirent = dirents[index]!;
    const decoded = decode === undefined ? { name: dirent.name as string, utf8: true } : decode(dirent.name as Buffer);
    const name = decoded.name;
    if (decode === undefined && name.includes('\ufffd')) return { ...empty, undecoded: true };
    names[index] = name;
    kinds[index] = dirent.isFile() ? 1 : dirent.isDirectory() ? 2 : dirent.isSymbolicLink() ? 3 : 0;
    if (!decoded.utf8) {
      notUtf8?.add(index);
      continue;
    }
    const at = index * 6;
    try {
      const stat = fs.lstatSync(`${path}/${name}`, { throwIfNoEntry: false });
      if (stat === undefined) {
        stats[at] = -1;
        continue;
      }
      stats[at] = stat.mode;
      stats[at + 1] = stat.size;
      stats[at + 2] = stat.mtimeMs;
      stats[at + 3] = stat.ctimeMs;
      stats[at + 4] = stat.ino;
      stats[at + 5] = stat.dev;
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      stats[at] = -2;
      failures.push({ index, code, message: String(message) });
    }
  }
  return notUtf8 === undefined ? { rel, names, kinds, stats, failures } : { rel, names, kinds, stats, failures, notUtf8 };
}
