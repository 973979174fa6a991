import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPaths } from './import-paths.js';
import { importTree, skippedEntries } from './import-tree.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

function write(root: string, rel: string, content: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), content);
}

describe('importPaths', () => {
  it('brings many paths in line with disk in one call, with one outcome per path', () => {
    const root = makeTempDir();
    write(root, '.gitignore', '*.log\n');
    write(root, 'same.txt', 'same');
    write(root, 'edit.txt', 'old');
    write(root, 'gone.txt', 'bye');
    write(root, 'dir/inner.txt', 'inner');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    write(root, 'edit.txt', 'new');
    rmSync(join(root, 'gone.txt'));
    write(root, 'dir/sub/new.txt', 'below');
    write(root, 'new.txt', 'added');
    write(root, 'noise.log', 'ignored');
    const results = importPaths(store, root, ['same.txt', 'edit.txt', 'gone.txt', 'new.txt', 'noise.log', 'dir'], { subtree: true });
    expect(results).toEqual(['unchanged', 'updated', 'removed', 'added', 'ignored', 'added']);
    expect(store.fs.readFile('/edit.txt', 'utf8')).toBe('new');
    expect(store.fs.readFile('/dir/sub/new.txt', 'utf8')).toBe('below');
    expect(store.fs.readdir('/').sort()).toEqual(['.gitignore', 'dir', 'edit.txt', 'new.txt', 'same.txt']);
  });

  it('records an unreadable path as skipped and clears it once it can be read again', () => {
    if (process.getuid?.() === 0) return;
    const root = makeTempDir();
    write(root, 'a.txt', 'a');
    write(root, 'secret/x.txt', 'x');
    const store = openTempStore('stable.db', makeTempDir());
    chmodSync(join(root, 'secret'), 0o000);
    try {
      expect(importPaths(store, root, ['a.txt', 'secret'], { subtree: true })).toEqual(['added', 'skipped']);
      expect(skippedEntries(store).map((s) => s.path)).toEqual(['secret']);
    } finally {
      chmodSync(join(root, 'secret'), 0o755);
    }
    expect(importPaths(store, root, ['a.txt', 'secret'], { subtree: true })).toEqual(['unchanged', 'added']);
    expect(skippedEntries(store)).toEqual([]);
    expect(store.fs.readFile('/secret/x.txt', 'utf8')).toBe('x');
  });
});
