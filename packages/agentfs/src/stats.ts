import { S_IFDIR, S_IFLNK, S_IFMT, S_IFREG } from './mode.js';

/** The raw inode columns a Stats is built from. */
export interface InodeRow {
  ino: number;
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
  atime: number;
  mtime: number;
  ctime: number;
  mtime_nsec: number;
}

/** File metadata, shaped like `agentfs-sdk`'s Stats (times in Unix seconds; `mtimeNs` adds precision). */
export class Stats {
  readonly ino: number;
  readonly mode: number;
  readonly nlink: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  readonly atime: number;
  readonly mtime: number;
  readonly ctime: number;
  /** Modification time in nanoseconds since the epoch. */
  readonly mtimeNs: bigint;

  constructor(row: InodeRow) {
    this.ino = row.ino;
    this.mode = row.mode;
    this.nlink = row.nlink;
    this.uid = row.uid;
    this.gid = row.gid;
    this.size = row.size;
    this.atime = row.atime;
    this.mtime = row.mtime;
    this.ctime = row.ctime;
    this.mtimeNs = BigInt(row.mtime) * 1_000_000_000n + BigInt(row.mtime_nsec);
  }

  isFile(): boolean {
    return (this.mode & S_IFMT) === S_IFREG;
  }

  isDirectory(): boolean {
    return (this.mode & S_IFMT) === S_IFDIR;
  }

  isSymbolicLink(): boolean {
    return (this.mode & S_IFMT) === S_IFLNK;
  }
}
