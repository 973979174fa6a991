import { closeSync, fsyncSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file through a hidden temp file beside it and a rename, so a reader (or a watcher, which ignores
 * dot files) never sees half of it; `durable` also flushes it to the disk before the rename, for files a
 * person writes decisions in.
 */
export function writeAtomically(path: string, text: string, options: { durable?: boolean } = {}): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  writeFileSync(temp, text);
  if (options.durable === true) {
    const fd = openSync(temp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  renameSync(temp, path);
}
