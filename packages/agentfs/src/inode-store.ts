import type Database from 'better-sqlite3';
import { insertChunks, readChunkRange, readChunks } from './chunked-data.js';
import type { Clock } from './connection.js';
import { AgentFSError, closedStoreError } from './errors.js';
import { deleteInodeRows, type InodeStatements, prepareInodeStatements } from './inode-statements.js';
import type { InodeRow } from './stats.js';

const MAX_CACHED = 100_000;

/** A directory entry as the resolver sees it. */
export interface Dentry {
  ino: number;
  mode: number;
}

/** A named child of a directory. */
export interface NamedDentry extends Dentry {
  name: string;
}

/** Timestamp split into the format's seconds and nanoseconds columns. */
export interface Timestamp {
  sec: number;
  nsec: number;
}

/** Converts a millisecond clock reading (fractions allowed) to seconds + nanoseconds, at microsecond precision (what a double of milliseconds holds). */
export function toTimestamp(ms: number): Timestamp {
  const micros = Math.round(ms * 1000);
  const sec = Math.floor(micros / 1_000_000);
  return { sec, nsec: (micros - sec * 1_000_000) * 1000 };
}

/** True when `toTimestamp(ms)` is `sec` and `nsec`, without making it (a walk compares tens of thousands). */
export function isTimestamp(ms: number, sec: number, nsec: number): boolean {
  const micros = Math.round(ms * 1000);
  const whole = Math.floor(micros / 1_000_000);
  return whole === sec && (micros - whole * 1_000_000) * 1000 === nsec;
}

/**
 * Inode, dentry, chunk, symlink, whiteout and origin operations on one AgentFS database,
 * with every statement prepared once. It knows nothing of paths beyond whiteout keys.
 */
export class InodeStore {
  readonly db: Database.Database;
  readonly chunkSize: number;
  private readonly clock: Clock;
  private readonly stmt: InodeStatements;
  /** Lookups by (parent inode, name) and whiteout tests, valid while no one else commits (see `validateCache`). */
  private readonly dentryCache = new Map<string, Dentry | null>();
  private readonly whiteoutCache = new Map<string, boolean>();
  /** How many times this connection added, removed or moved a name (see `namesVersion`). */
  private namesWritten = 0;
  private dataVersion = -1;

  constructor(db: Database.Database, chunkSize: number, clock: Clock) {
    this.db = db;
    this.chunkSize = chunkSize;
    this.clock = clock;
    this.stmt = prepareInodeStatements(db);
  }

  /**
   * Drops cached lookups if another connection committed since the last call (SQLite's data_version).
   * Called once at the start of every path walk; this connection's own writes invalidate as they happen.
   * On a closed store it throws EBADF.
   */
  validateCache(): void {
    let version: number;
    try {
      version = this.stmt.dataVersion.get() as number;
    } catch (error) {
      throw this.explain(error);
    }
    if (version !== this.dataVersion) {
      this.invalidate();
      this.dataVersion = version;
    }
  }

  /** The error to raise for `error`: EBADF when it came from using a closed connection, else `error` itself. */
  explain(error: unknown): unknown {
    return this.db.open ? error : closedStoreError(this.db.name, error);
  }

  /** Forgets every cached lookup (after a write, or a rolled-back transaction). */
  invalidate(): void {
    if (this.dentryCache.size > 0) this.dentryCache.clear();
    if (this.whiteoutCache.size > 0) this.whiteoutCache.clear();
  }

  now(): Timestamp {
    return toTimestamp(this.clock());
  }

  child(parentIno: number, name: string): Dentry | undefined {
    const key = `${parentIno}/${name}`;
    const cached = this.dentryCache.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.stmt.child.get(parentIno, name) as Dentry | undefined;
    if (this.dentryCache.size >= MAX_CACHED) this.invalidate();
    this.dentryCache.set(key, found ?? null);
    return found;
  }

  /**
   * A token that changes whenever the tree's names may have changed: another connection committed (SQLite's
   * data_version), or this one added, removed or moved a name (a rolled-back change counts too). What is
   * derived from the whole tree can be kept while it stays the same.
   */
  namesVersion(): string {
    let version: number;
    try {
      version = this.stmt.dataVersion.get() as number;
    } catch (error) {
      throw this.explain(error);
    }
    return `${version}:${this.namesWritten}`;
  }

  /** Whether any whiteout is recorded (an overlay's upper layer that hid nothing has none). */
  hasWhiteouts(): boolean {
    return this.stmt.anyWhiteout.get() !== undefined;
  }

  children(ino: number): NamedDentry[] {
    return this.stmt.children.all(ino) as NamedDentry[];
  }

  hasChildren(ino: number): boolean {
    return this.stmt.hasChildren.get(ino) !== undefined;
  }

  inode(ino: number): InodeRow {
    const row = this.stmt.inode.get(ino) as InodeRow | undefined;
    if (row === undefined) throw new AgentFSError('ECORRUPT', 'stat', undefined, `dentry points at missing inode ${ino}`);
    return row;
  }

  /** Creates an unlinked inode; `link` gives it a name. */
  createInode(mode: number, mtime?: Timestamp): number {
    const now = this.now();
    const m = mtime ?? now;
    const info = this.stmt.insertInode.run(mode, now.sec, m.sec, now.sec, now.nsec, m.nsec, now.nsec);
    return Number(info.lastInsertRowid);
  }

  /** Creates a file with its content and its one name in three statements (the import's hot path). */
  createFile(parentIno: number, name: string, mode: number, data: Uint8Array, mtime?: Timestamp): number {
    const now = this.now();
    const m = mtime ?? now;
    const info = this.stmt.insertFileInode.run(mode, data.byteLength, now.sec, m.sec, now.sec, now.nsec, m.nsec, now.nsec);
    const ino = Number(info.lastInsertRowid);
    this.namesWritten++;
    this.stmt.insertDentry.run(name, parentIno, ino);
    this.dentryCache.set(`${parentIno}/${name}`, { ino, mode });
    insertChunks(this.stmt.insertChunk, this.chunkSize, ino, data);
    return ino;
  }

  link(parentIno: number, name: string, ino: number): void {
    this.namesWritten++;
    this.stmt.insertDentry.run(name, parentIno, ino);
    this.stmt.addLink.run(ino);
    this.dentryCache.delete(`${parentIno}/${name}`);
  }

  /** Removes one name; frees the inode, its chunks, symlink and origin rows when no name is left. */
  unlink(parentIno: number, name: string, ino: number): void {
    this.dentryCache.set(`${parentIno}/${name}`, null);
    this.namesWritten++;
    this.stmt.deleteDentry.run(parentIno, name);
    const remaining = this.stmt.dropLink.get(ino) as number | undefined;
    if (remaining !== undefined && remaining <= 0) deleteInodeRows(this.stmt, ino);
  }

  moveDentry(fromParent: number, fromName: string, toParent: number, toName: string): void {
    this.dentryCache.set(`${fromParent}/${fromName}`, null);
    this.dentryCache.delete(`${toParent}/${toName}`);
    this.namesWritten++;
    this.stmt.moveDentry.run(toParent, toName, fromParent, fromName);
  }

  readData(ino: number): Buffer {
    return readChunks(this.stmt.chunks, ino);
  }

  readRange(ino: number, offset: number, length: number, size: number): Buffer {
    return readChunkRange(this.stmt.chunkRange, this.chunkSize, ino, offset, length, size);
  }

  /** Replaces a file's whole content (`fresh`: the inode has no chunks yet). */
  writeData(ino: number, data: Uint8Array, mtime?: Timestamp, fresh = false): void {
    if (!fresh) this.stmt.deleteData.run(ino);
    const size = insertChunks(this.stmt.insertChunk, this.chunkSize, ino, data);
    const now = this.now();
    const m = mtime ?? now;
    this.stmt.setSize.run(size, m.sec, m.nsec, now.sec, now.nsec, ino);
  }

  setMode(ino: number, mode: number): void {
    this.invalidate();
    const now = this.now();
    this.stmt.setMode.run(mode, now.sec, now.nsec, ino);
  }

  setMtime(ino: number, mtime: Timestamp): void {
    this.stmt.setMtime.run(mtime.sec, mtime.nsec, ino);
  }

  touch(ino: number): void {
    const now = this.now();
    this.stmt.touch.run(now.sec, now.nsec, now.sec, now.nsec, ino);
  }

  readlink(ino: number): string {
    const target = this.stmt.symlinkTarget.get(ino) as string | undefined;
    if (target === undefined) throw new AgentFSError('ECORRUPT', 'readlink', undefined, `symlink inode ${ino} has no target`);
    return target;
  }

  setSymlink(ino: number, target: string): void {
    this.stmt.insertSymlink.run(ino, target);
    const now = this.now();
    this.stmt.setSize.run(Buffer.byteLength(target), now.sec, now.nsec, now.sec, now.nsec, ino);
  }

  hasWhiteout(path: string): boolean {
    const cached = this.whiteoutCache.get(path);
    if (cached !== undefined) return cached;
    const found = this.stmt.hasWhiteout.get(path) !== undefined;
    if (this.whiteoutCache.size >= MAX_CACHED) this.invalidate();
    this.whiteoutCache.set(path, found);
    return found;
  }

  whiteoutsIn(parentPath: string): string[] {
    return this.stmt.whiteoutsIn.all(parentPath) as string[];
  }

  allWhiteouts(): string[] {
    return this.stmt.allWhiteouts.all() as string[];
  }

  addWhiteout(path: string, parentPath: string): void {
    this.whiteoutCache.set(path, true);
    this.stmt.addWhiteout.run(path, parentPath, this.now().sec);
  }

  removeWhiteout(path: string): void {
    this.whiteoutCache.set(path, false);
    this.stmt.removeWhiteout.run(path);
  }

  /** Removes the whiteout at `path` and every whiteout below it. */
  removeWhiteoutsUnder(path: string): void {
    this.whiteoutCache.clear();
    const prefix = path === '/' ? '/' : path + '/';
    this.stmt.removeWhiteoutsUnder.run(path, prefix.length, prefix);
  }

  origin(deltaIno: number): number | undefined {
    return this.stmt.origin.get(deltaIno) as number | undefined;
  }

  setOrigin(deltaIno: number, baseIno: number): void {
    this.stmt.setOrigin.run(deltaIno, baseIno);
  }

  statfs(): { inodes: number; bytesUsed: number } {
    return { inodes: this.stmt.countInodes.get() as number, bytesUsed: this.stmt.sumSizes.get() as number };
  }
}
