/** File-type bits of `mode`, as in POSIX `st_mode`. */
export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFLNK = 0o120000;
export const DEFAULT_FILE_MODE = S_IFREG | 0o644;
export const DEFAULT_DIR_MODE = S_IFDIR | 0o755;
export const DEFAULT_SYMLINK_MODE = S_IFLNK | 0o777;

/** The three kinds of entry the store keeps content for. */
export type EntryKind = 'file' | 'dir' | 'symlink';

/** The kind of entry a mode describes (other special files count as files). */
export function kindOfMode(mode: number): EntryKind {
  const type = mode & S_IFMT;
  if (type === S_IFDIR) return 'dir';
  if (type === S_IFLNK) return 'symlink';
  return 'file';
}

/** A mode for `kind` with the permission bits of `permissions`. */
export function modeFor(kind: EntryKind, permissions?: number): number {
  const type = kind === 'dir' ? S_IFDIR : kind === 'symlink' ? S_IFLNK : S_IFREG;
  const fallback = kind === 'dir' ? 0o755 : kind === 'symlink' ? 0o777 : 0o644;
  return type | ((permissions ?? fallback) & 0o7777);
}
