import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { staleBuilds } from './check-built.js';

const root = mkdtempSync(join(tmpdir(), 'cairn-check-built-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function pkg(name: string, files: Record<string, number>): void {
  const dir = join(root, 'packages', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{}');
  for (const [file, age] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), '');
    const when = new Date(Date.now() - age * 1000);
    utimesSync(join(dir, file), when, when);
  }
}

describe('stale builds are found before tests run old code', () => {
  it('names a package whose source is newer than its build, or that was never built', () => {
    pkg('fresh', { 'src/a.ts': 100, 'dist/a.js': 10 });
    pkg('stale', { 'src/a.ts': 5, 'dist/a.js': 100 });
    pkg('unbuilt', { 'src/a.ts': 5 });
    pkg('only-tests-changed', { 'src/a.ts': 100, 'src/a.test.ts': 1, 'dist/a.js': 50 });
    const stale = staleBuilds(root);
    expect(stale).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/packages\/stale\/src\/a\.ts is newer than packages\/stale\/dist/),
        'packages/unbuilt has no dist/',
      ]),
    );
    expect(stale.join('\n')).not.toMatch(/fresh|only-tests-changed/);
  });

  it('this repository is built when its tests run', () => expect(staleBuilds()).toEqual([]));
});
