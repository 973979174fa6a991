import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { stateOf } from './entry-state.js';
import type { FileSystem } from './file-system.js';
import { isProtectedName } from './ignore-rules.js';
import { joinPath, toRelative } from './path.js';
import { writeState } from './write-back.js';

/** Writes the whole tree of a store or overlay into `dir` (created if missing), protected names left out; returns the number of entries written. */
export function materialize(fs: FileSystem, dir: string): number {
  mkdirSync(dir, { recursive: true });
  let written = 0;
  const visit = (path: string): void => {
    for (const name of fs.readdir(path)) {
      const child = joinPath(path, name);
      if (isProtectedName(name)) continue;
      const state = stateOf(fs, child);
      writeState(join(dir, toRelative(child)), state);
      written++;
      if (state.kind === 'dir') visit(child);
    }
  };
  visit('/');
  return written;
}
