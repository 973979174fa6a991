import { isUtf8 } from 'node:buffer';
import type Database from 'better-sqlite3';

/** An entry of the working tree an import left out, and why: it cannot be read, or its name is not UTF-8. */
export interface SkippedEntry {
  /** Project-relative path; bytes that are not UTF-8 are written `\xNN`. */
  path: string;
  reason: string;
}

const DDL = `CREATE TABLE IF NOT EXISTS cairn_skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL, seen_at INTEGER NOT NULL)`;

/**
 * The entries the last imports of a store skipped (`cairn_skipped`), so a later command can list them. The
 * table is written only when the list changes, so an import that finds nothing new commits nothing.
 */
export class SkippedEntries {
  /** Set once the table is known to exist (it is never dropped), with the queries of `update`. */
  private below: { select: Database.Statement; remove: Database.Statement } | undefined;
  /**
   * Set when `update` found no table and had nothing to record. An instance serves one import, inside its
   * transaction, so no one else creates the table meanwhile: the next paths need not ask again.
   */
  private absent = false;

  constructor(private readonly db: Database.Database) {}

  /** Replaces the whole list (after a full import). */
  replace(entries: readonly SkippedEntry[], time: number): void {
    const current = this.list();
    if (sameEntries(current, sorted(entries))) return;
    this.db.exec(DDL);
    this.db.prepare('DELETE FROM cairn_skipped').run();
    this.insert(entries, time);
  }

  /** Records or clears the entries of one path and what lies below it (after a one-path import). */
  update(path: string, entries: readonly SkippedEntry[], time: number): void {
    if (this.below === undefined) {
      if (entries.length === 0 && this.absent) return;
      if (!this.exists()) {
        this.absent = entries.length === 0;
        if (this.absent) return;
        this.db.exec(DDL);
      }
      const below = "path = ? OR substr(path, 1, length(?) + 1) = ? || '/'";
      this.below = {
        select: this.db.prepare(`SELECT path, reason FROM cairn_skipped WHERE ${below} ORDER BY path`),
        remove: this.db.prepare(`DELETE FROM cairn_skipped WHERE ${below}`),
      };
    }
    const current = this.below.select.all(path, path, path) as SkippedEntry[];
    if (sameEntries(current, sorted(entries))) return;
    this.below.remove.run(path, path, path);
    this.insert(entries, time);
  }

  /** Every skipped entry, in path order; empty when nothing was ever skipped. */
  list(): SkippedEntry[] {
    if (!this.exists()) return [];
    return this.db.prepare('SELECT path, reason FROM cairn_skipped ORDER BY path').all() as SkippedEntry[];
  }

  private exists(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cairn_skipped'").get() !== undefined;
  }

  private insert(entries: readonly SkippedEntry[], time: number): void {
    if (entries.length === 0) return;
    const insert = this.db.prepare('INSERT OR REPLACE INTO cairn_skipped (path, reason, seen_at) VALUES (?, ?, ?)');
    for (const entry of entries) insert.run(entry.path, entry.reason, time);
  }
}

/** Entries in path order (the order `list` gives), the last reason of a path kept. */
function sorted(entries: readonly SkippedEntry[]): SkippedEntry[] {
  const byPath = new Map(entries.map((entry) => [entry.path, entry.reason]));
  return [...byPath.keys()].sort(comparePaths).map((path) => ({ path, reason: byPath.get(path)! }));
}

function sameEntries(a: readonly SkippedEntry[], b: readonly SkippedEntry[]): boolean {
  return a.length === b.length && a.every((entry, i) => entry.path === b[i]!.path && entry.reason === b[i]!.reason);
}

/** Orders paths as SQLite's BINARY collation does (UTF-8 bytes), which is not JavaScript's UTF-16 order. */
export function comparePaths(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A file name as text: UTF-8 as it is, other bytes as `\xNN`, so a name that is not UTF-8 can still be shown. */
export function describeName(name: Buffer): string {
  if (isUtf8(name)) return name.toString('utf8');
  let out = '';
  for (const byte of name)
    out += byte >= 0x20 && byte < 0x7f && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  return out;
}

/** True when the bytes of a name are valid UTF-8 (so the name survives the round trip to text and back). */
export function isUtf8Name(name: Buffer): boolean {
  return isUtf8(name);
}

const ERROR_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  EIO: 'an input/output error',
  EBUSY: 'it is busy',
  ENOTEMPTY: 'a folder with contents is in the way',
  ETXTBSY: 'it is a program that is running',
};

/** What went wrong with a file system call, in words (`permission denied`), from its error. */
export function describeFsError(error: unknown): string {
  if ((error as { name?: unknown }).name === 'AgentFSError')
    return (error as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/s, '');
  const code = (error as NodeJS.ErrnoException).code;
  return (code === undefined ? undefined : ERROR_WORDS[code]) ?? `${code ?? 'error'}: ${(error as Error).message}`;
}

/** Why an entry cannot be read, in words, from the error of the call that failed. */
export function unreadableReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && ERROR_WORDS[code] !== undefined) return ERROR_WORDS[code]!;
  return `cannot be read (${code ?? (error as Error).message})`;
}
