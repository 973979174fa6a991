// The repository stands alone: a user's clone has nothing beside it, so no file of the project may point at
// a folder outside it (the installer, the conformance vectors and the design documents live inside).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Folders that are built, installed or machine-local, never part of a clone. */
const NOT_SOURCE = new Set(['node_modules', 'dist', '.git', '.turbo', 'results']);
const OUTSIDE = ['..', 'shared'].join('/');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (NOT_SOURCE.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe('the repository stands alone', () => {
  it(`has no file that refers to ${OUTSIDE}`, () => {
    const files = sourceFiles(ROOT);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files
      .filter((path) => readFileSync(path).includes(OUTSIDE))
      .map((path) => relative(ROOT, path))
      .sort();
    expect(offenders).toEqual([]);
  });

  it('keeps what its tests and CI need inside it', () => {
    const files = new Set(sourceFiles(ROOT).map((path) => relative(ROOT, path)));
    for (const needed of [
      'scripts/install-nvim-0.10.sh',
      'packages/air/test/vectors/README.md',
      'packages/air/test/vectors/wycheproof-ed25519.json',
      'packages/air/test/vectors/air/canonical-cbor.json',
      'docs/ARCHITECTURE.md',
      'spec/agentfs-v0.4.md',
    ])
      expect(files, needed).toContain(needed);
  });
});
