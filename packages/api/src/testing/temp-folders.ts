import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/**
 * Temp folders named `prefix…`, every one removed after each test (a test may make several): call at the top of
 * a test file, then `make()` wherever a test needs a folder.
 */
export function tempFolders(prefix: string): { make(): string } {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    make() {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      return dir;
    },
  };
}
