import { AgentFSError } from './errors.js';
import type { Stats } from './stats.js';

/** Options for `writeFile`. `mode` sets permission bits; `mtimeMs` overrides the modification time. */
export interface WriteFileOptions {
  mode?: number;
  mtimeMs?: number;
  /** Follow no symbolic link in any component (ELOOP if one is met): touch exactly the path given. */
  noFollow?: boolean;
}

/** Options for `mkdir`. */
export interface MkdirOptions {
  recursive?: boolean;
  mode?: number;
  /** Follow no symbolic link in any component (ELOOP if one is met). */
  noFollow?: boolean;
}

/** Options for `rm`: `recursive` removes directories with their contents, `force` ignores a missing path. */
export interface RmOptions {
  recursive?: boolean;
  force?: boolean;
  /** Follow no symbolic link on the way (ELOOP if one is met; the last component is never followed by rm). */
  noFollow?: boolean;
}

/** Options for `rename`. */
export interface RenameOptions {
  /** Follow no symbolic link on the way to either path (ELOOP if one is met). */
  noFollow?: boolean;
}

/** A name in a directory with its metadata. */
export interface DirEntry {
  name: string;
  stats: Stats;
}

/** Reads at an offset from one file. */
export interface FileHandle {
  pread(offset: number, length: number): Buffer;
  fstat(): Stats;
}

/**
 * The file-system surface shared by a store and an overlay. Every call is synchronous (better-sqlite3 is),
 * so `await fs.readFile(p)` written against `agentfs-sdk` works unchanged. Paths are store-absolute or
 * relative to the root; both normalise to `/a/b`.
 */
export interface FileSystem {
  readFile(path: string): Buffer;
  readFile(path: string, encoding: 'utf8' | 'utf-8'): string;
  readFile(path: string, encoding?: 'utf8' | 'utf-8'): Buffer | string;
  /** Reads `length` bytes from `offset` (fewer at the end of the file). */
  read(path: string, offset: number, length: number): Buffer;
  open(path: string): FileHandle;
  writeFile(path: string, data: string | Uint8Array, options?: WriteFileOptions): void;
  readdir(path: string): string[];
  readdirPlus(path: string): DirEntry[];
  stat(path: string): Stats;
  lstat(path: string): Stats;
  exists(path: string): boolean;
  mkdir(path: string, options?: MkdirOptions): void;
  rm(path: string, options?: RmOptions): void;
  unlink(path: string): void;
  rmdir(path: string): void;
  rename(from: string, to: string, options?: RenameOptions): void;
  /** The real path: every symbolic link followed; a missing last component is allowed; EPERM for a link out of the tree. */
  realpath(path: string): string;
  /** Adds a second name for a file (a hard link); both names share one inode. */
  link(existingPath: string, newPath: string): void;
  symlink(target: string, path: string): void;
  readlink(path: string): string;
  chmod(path: string, mode: number): void;
  statfs(): { inodes: number; bytesUsed: number };
}

/** Encodes `writeFile` input to bytes; anything but text or bytes is refused before the store is touched. */
export function toBytes(data: string | Uint8Array, path: string): Uint8Array {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (data instanceof Uint8Array) return data;
  const kind = data === null ? 'null' : typeof data === 'object' ? ((data as object).constructor?.name ?? 'object') : typeof data;
  throw new AgentFSError('EINVAL', 'write', path, `data must be a string or a Uint8Array, not ${kind}`);
}
