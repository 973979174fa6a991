import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProtectedPath } from './ignore-rules.js';
import { importTree } from './import-tree.js';
import { errorOf } from './test-support/error-code.js';
import { openTempOverlay, openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';
import { writeBack } from './write-back.js';

const NOT_ROOT = process.getuid?.() !== 0;

describe('writeBack deletes nothing on disk the store did not hold', () => {
  it('leaves a folder in the way of a file alone when it holds anything, even without expectations', () => {
    const root = makeTempDir();
    const store = openTempStore('stable.db', makeTempDir());
    store.fs.writeFile('/b.txt', 'agent\n');
    mkdirSync(join(root, 'b.txt'));
    writeFileSync(join(root, 'b.txt', 'notes.md'), 'mine\n');
    const result = writeBack(store.fs, root, ['b.txt']);
    expect(result.written).toEqual([]);
    expect(result.moved.map((m) => m.path)).toEqual(['b.txt']);
    expect(readFileSync(join(root, 'b.txt', 'notes.md'), 'utf8')).toBe('mine\n');
  });

  it('replaces a folder whose every entry the same write-back deletes (deletions go first)', () => {
    const root = makeTempDir();
    mkdirSync(join(root, 'd', 'sub'), { recursive: true });
    writeFileSync(join(root, 'd', 'sub', 'x'), 'x\n');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    store.fs.rm('/d', { recursive: true });
    store.fs.writeFile('/d', 'now a file\n');
    const result = writeBack(store.fs, root, ['d', 'd/sub', 'd/sub/x']);
    expect(result.moved).toEqual([]);
    expect(readFileSync(join(root, 'd'), 'utf8')).toBe('now a file\n');
  });

  it('keeps a folder it deletes when the rest of it is left out by the ignore rules, and refuses to put a file there', () => {
    const root = makeTempDir();
    mkdirSync(join(root, 'src', 'cache'), { recursive: true });
    writeFileSync(join(root, 'src', 'a.ts'), 'a\n');
    writeFileSync(join(root, 'src', 'cache', 'debug.log'), 'mine\n');
    writeFileSync(join(root, 'src', 'cache', 'b.ts'), 'b\n');
    mkdirSync(join(root, 'lib'));
    writeFileSync(join(root, 'lib', 'trace.log'), 'mine\n');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root, { ignore: ['*.log'] });
    store.fs.rm('/src', { recursive: true });
    store.fs.rm('/lib', { recursive: true });
    store.fs.writeFile('/lib', 'now a file\n');
    const leftOut = (rel: string) => rel.endsWith('.log');
    const result = writeBack(store.fs, root, ['lib', 'src', 'src/a.ts', 'src/cache', 'src/cache/b.ts'], { leftOut });
    expect(result.moved).toEqual([]);
    expect(result.kept).toEqual(['src', 'src/cache']);
    expect(result.written).toEqual(['src/a.ts', 'src/cache/b.ts']);
    expect(result.failed.map((f) => [f.path, (f.error as { code?: string }).code])).toEqual([['lib', 'ENOTEMPTY']]);
    expect(readFileSync(join(root, 'src', 'cache', 'debug.log'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(root, 'lib', 'trace.log'), 'utf8')).toBe('mine\n');
  });

  it('a path the system refuses to write does not stop the others', () => {
    const root = makeTempDir();
    writeFileSync(join(root, 'blocker'), 'a file where a folder should be\n');
    const store = openTempStore('stable.db', makeTempDir());
    store.fs.writeFile('/blocker/inside.txt', 'x\n');
    store.fs.writeFile('/ok.txt', 'ok\n');
    const result = writeBack(store.fs, root, ['blocker/inside.txt', 'ok.txt']);
    expect(result.written).toEqual(['ok.txt']);
    expect(result.failed.map((f) => f.path)).toEqual(['blocker/inside.txt']);
    expect(readFileSync(join(root, 'blocker'), 'utf8')).toBe('a file where a folder should be\n');
  });

  it.runIf(NOT_ROOT)('a file it cannot read is never written over', () => {
    const root = makeTempDir();
    writeFileSync(join(root, 'secret.txt'), 'secret\n');
    chmodSync(join(root, 'secret.txt'), 0);
    const store = openTempStore('stable.db', makeTempDir());
    store.fs.writeFile('/secret.txt', 'agent\n');
    try {
      const result = writeBack(store.fs, root, ['secret.txt']);
      expect(result.moved).toEqual([{ path: 'secret.txt', expected: undefined, found: undefined }]);
    } finally {
      chmodSync(join(root, 'secret.txt'), 0o644);
    }
    expect(readFileSync(join(root, 'secret.txt'), 'utf8')).toBe('secret\n');
  });

  it.runIf(NOT_ROOT)('a read-only file is never replaced or deleted', () => {
    const root = makeTempDir();
    writeFileSync(join(root, 'keep.txt'), 'keep\n');
    writeFileSync(join(root, 'gone.txt'), 'gone\n');
    chmodSync(join(root, 'keep.txt'), 0o444);
    chmodSync(join(root, 'gone.txt'), 0o444);
    const store = openTempStore('stable.db', makeTempDir());
    store.fs.writeFile('/keep.txt', 'agent\n');
    const result = writeBack(store.fs, root, ['keep.txt', 'gone.txt']);
    expect(result.failed.map((f) => f.path)).toEqual(['gone.txt', 'keep.txt']);
    expect(readFileSync(join(root, 'keep.txt'), 'utf8')).toBe('keep\n');
    expect(readFileSync(join(root, 'gone.txt'), 'utf8')).toBe('gone\n');
  });

  it.each(['.GIT/config', '.Git/hooks/pre-commit', '.Cairn/config.json', '.AGENTFS/bin.db', '.git./config', '.g\u200cit/HEAD'])(
    'refuses %s, a protected path on a case-insensitive or normalising disk, and an overlay never creates it',
    (path) => {
      const root = makeTempDir();
      const { base, overlay } = openTempOverlay();
      base.fs.writeFile('/' + path, 'x');
      expect(errorOf(() => writeBack(base.fs, root, [path])).code).toBe('EPERM');
      expect(errorOf(() => overlay.fs.writeFile('/' + path, 'x')).code).toBe('EPERM');
      expect(isProtectedPath(path)).toBe(true);
    },
  );

  it('leaves names that only look like protected ones alone', () => {
    for (const path of ['.gitx/config', 'git/config', '.cairnrc', 'src/.github-notes.md']) expect(isProtectedPath(path)).toBe(false);
  });
});
