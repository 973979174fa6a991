import { closeSync, fsyncSync, openSync } from 'node:fs';

/** fsync a directory, so the renames in it survive a power loss. */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // a directory that is gone, or a file system that cannot fsync directories, has nothing to make durable
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
