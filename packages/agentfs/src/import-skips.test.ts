import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPath } from './import-paths.js';
import { importTree, skippedEntries } from './import-tree.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

const NOT_ROOT = process.getuid?.() !== 0;

function write(root: string, rel: string | Buffer, content: string): void {
  const path = Buffer.isBuffer(rel) ? Buffer.concat([Buffer.from(root + '/'), rel]) : join(root, rel);
  writeFileSync(path, content);
}

describe('an import skips what it cannot take, says so, and touches nothing', () => {
  it('leaves out names that are not UTF-8 (a file, and a folder with what is in it), listing each once', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'a\n');
    write(root, Buffer.from('bad\xffname.txt', 'latin1'), 'bytes\n');
    mkdirSync(Buffer.concat([Buffer.from(root + '/'), Buffer.from('dir\xfe', 'latin1')]));
    write(root, Buffer.from('dir\xfe/inner.txt', 'latin1'), 'inner\n');
    const store = openTempStore('stable.db', makeTempDir());
    const summary = importTree(store, root);
    expect(store.fs.readdir('/')).toEqual(['a.txt']);
    expect(summary.skipped).toEqual([
      { path: 'bad\\xffname.txt', reason: 'the name is not UTF-8' },
      { path: 'dir\\xfe', reason: 'the name is not UTF-8' },
    ]);
    expect(skippedEntries(store)).toEqual(summary.skipped.slice().sort((x, y) => (x.path < y.path ? -1 : 1)));
    expect(readFileSync(Buffer.concat([Buffer.from(root + '/'), Buffer.from('bad\xffname.txt', 'latin1')]), 'utf8')).toBe('bytes\n');
    importTree(store, root);
    expect(skippedEntries(store)).toHaveLength(2);
  });

  it('ignores a FIFO without reading it (no hang)', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'a\n');
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const store = openTempStore('stable.db', makeTempDir());
    const summary = importTree(store, root);
    expect(store.fs.readdir('/')).toEqual(['a.txt']);
    expect(summary.skipped).toEqual([]);
  });

  it('a file that cannot be read when its turn comes is left out and listed, and the rest imported (as root too)', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'a\n');
    write(root, 'gone.txt', 'soon gone\n');
    const store = openTempStore('stable.db', makeTempDir());
    let removed = false;
    const summary = importTree(store, root, {
      onProgress: (p) => {
        if (p.phase === 'scan' && !removed) {
          removed = true;
          rmSync(join(root, 'gone.txt'));
        }
      },
    });
    expect(summary.skipped).toEqual([{ path: 'gone.txt', reason: 'it was removed while it was being imported' }]);
    expect(store.fs.readdir('/')).toEqual(['a.txt']);
  });

  it.runIf(NOT_ROOT)('leaves out a file it may not read and a folder it may not list, and takes a file out that became unreadable', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'a\n');
    write(root, 'secret.txt', 'secret\n');
    mkdirSync(join(root, 'locked'));
    write(root, 'locked/in.txt', 'in\n');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    expect(store.fs.readdir('/')).toEqual(['a.txt', 'locked', 'secret.txt']);
    chmodSync(join(root, 'secret.txt'), 0);
    chmodSync(join(root, 'locked'), 0);
    try {
      const summary = importTree(store, root);
      expect(summary.skipped).toEqual([
        { path: 'locked', reason: 'the folder cannot be listed: permission denied' },
        { path: 'secret.txt', reason: 'permission denied' },
      ]);
      expect(store.fs.readdir('/')).toEqual(['a.txt']);
      expect(importPath(store, root, 'secret.txt')).toBe('skipped');
    } finally {
      chmodSync(join(root, 'secret.txt'), 0o644);
      chmodSync(join(root, 'locked'), 0o755);
    }
    expect(importPath(store, root, 'secret.txt')).toBe('added');
    expect(skippedEntries(store).map((s) => s.path)).toEqual(['locked']);
  });

  it('importPath with subtree brings a folder and everything below it in line with disk', () => {
    const root = makeTempDir();
    write(root, 'b.txt', 'file\n');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    rmSync(join(root, 'b.txt'));
    mkdirSync(join(root, 'b.txt', 'deep'), { recursive: true });
    write(root, 'b.txt/notes.md', 'notes\n');
    write(root, 'b.txt/deep/more.md', 'more\n');
    importPath(store, root, 'b.txt');
    expect(store.fs.readdir('/b.txt')).toEqual([]);
    importPath(store, root, 'b.txt', { subtree: true });
    expect(store.fs.readFile('/b.txt/deep/more.md', 'utf8')).toBe('more\n');
    rmSync(join(root, 'b.txt/deep'), { recursive: true });
    importPath(store, root, 'b.txt', { subtree: true });
    expect(store.fs.readdir('/b.txt')).toEqual(['notes.md']);
    expect(existsSync(join(root, 'b.txt/notes.md'))).toBe(true);
  });
});
