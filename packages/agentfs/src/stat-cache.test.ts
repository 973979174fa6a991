import { existsSync, mkdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPath } from './import-paths.js';
import { importTree } from './import-tree.js';
import { isRacy, RACY_MARGIN_MS } from './stat-cache.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

/** Big enough that reading any one file shows in the kernel's count, far above what the store's own pages add. */
const FILE_BYTES = 256 * 1024;

/** Bytes this process has read through read(2) and its kin so far: the kernel's own count (Linux). */
function bytesRead(): number {
  return Number(/rchar:\s+(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

/** A whole second (in seconds) for mtimes set by hand, so two files can have exactly the same one. */
const SOME_SECOND = 1_700_000_000;

/** A clock a minute ahead: the files were written long enough before for their stat to vouch for them. */
const aMinuteLater = () => Date.now() + 60_000;

function write(root: string, rel: string, content: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), content);
}

describe('the stat cache', () => {
  it.runIf(existsSync('/proc/self/io'))('leaves every unchanged file unread, and reads a changed one', () => {
    const root = makeTempDir();
    for (let i = 0; i < 6; i++) write(root, `src/part${i % 2}/file${i}.txt`, String(i).repeat(FILE_BYTES));
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root, { clock: aMinuteLater });

    let before = bytesRead();
    const again = importTree(store, root, { clock: aMinuteLater });
    expect(bytesRead() - before).toBeLessThan(FILE_BYTES);
    expect(again).toMatchObject({ files: 6, unchanged: 6, updated: 0, bytes: 0, rechecked: 0 });

    before = bytesRead();
    expect(importPath(store, root, 'src/part1/file3.txt')).toBe('unchanged');
    expect(bytesRead() - before).toBeLessThan(FILE_BYTES);

    write(root, 'src/part0/file2.txt', 'x'.repeat(FILE_BYTES));
    before = bytesRead();
    const changed = importTree(store, root, { clock: aMinuteLater });
    const read = bytesRead() - before;
    expect(read).toBeGreaterThanOrEqual(FILE_BYTES);
    expect(read).toBeLessThan(2 * FILE_BYTES);
    expect(changed).toMatchObject({ unchanged: 5, updated: 1, bytes: FILE_BYTES });
    expect(store.fs.readFile('/src/part0/file2.txt', 'utf8')).toBe('x'.repeat(FILE_BYTES));
  });

  it('sees a file rewritten in the same second with the same size and the same mtime', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'one\n');
    utimesSync(join(root, 'a.txt'), SOME_SECOND, SOME_SECOND);
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    write(root, 'a.txt', 'two\n');
    utimesSync(join(root, 'a.txt'), SOME_SECOND, SOME_SECOND);
    expect(importTree(store, root)).toMatchObject({ updated: 1 });
    expect(store.fs.readFile('/a.txt', 'utf8')).toBe('two\n');
  });

  it('sees a file replaced by another (a new inode) of the same size and mtime, however long ago', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'one\n');
    utimesSync(join(root, 'a.txt'), SOME_SECOND, SOME_SECOND);
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root, { clock: aMinuteLater });
    write(root, 'a.txt.tmp', 'two\n');
    utimesSync(join(root, 'a.txt.tmp'), SOME_SECOND, SOME_SECOND);
    renameSync(join(root, 'a.txt.tmp'), join(root, 'a.txt'));
    expect(importTree(store, root, { clock: aMinuteLater })).toMatchObject({ updated: 1 });
    expect(store.fs.readFile('/a.txt', 'utf8')).toBe('two\n');
    expect(importPath(store, root, 'a.txt')).toBe('unchanged');
  });

  it('compares a racily clean file again until it was checked long enough after its last change', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'one\n');
    const checked = Date.now();
    // changed "after" the first check: racy for that check whatever the clock says now
    utimesSync(join(root, 'a.txt'), new Date(checked + 10_000), new Date(checked + 10_000));
    const store = openTempStore('stable.db', makeTempDir());
    expect(importTree(store, root, { clock: () => checked })).toMatchObject({ added: 1 });
    expect(importTree(store, root, { clock: () => checked })).toMatchObject({ unchanged: 1, rechecked: 1, bytes: 0 });
    expect(importTree(store, root, { clock: () => checked + 60_000 })).toMatchObject({ unchanged: 1, rechecked: 1 });
    expect(importTree(store, root, { clock: () => checked + 60_000 })).toMatchObject({ unchanged: 1, rechecked: 0 });
  });

  it('calls an entry racy when its mtime or its ctime is within the margin of the check', () => {
    const checkedAt = 1_000_000;
    expect(isRacy({ mtimeMs: checkedAt - RACY_MARGIN_MS - 1, ctimeMs: checkedAt - RACY_MARGIN_MS - 1 }, checkedAt)).toBe(false);
    expect(isRacy({ mtimeMs: checkedAt - RACY_MARGIN_MS, ctimeMs: 0 }, checkedAt)).toBe(true);
    expect(isRacy({ mtimeMs: 0, ctimeMs: checkedAt - 1 }, checkedAt)).toBe(true);
    expect(isRacy({ mtimeMs: checkedAt + 5000, ctimeMs: 0 }, checkedAt)).toBe(true);
  });

  it('keeps the cache beside the AgentFS tables, dropping the rows of removed files', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'a');
    write(root, 'd/b.txt', 'b');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    const rows = () => store.db.prepare('SELECT count(*) FROM cairn_stat_cache').pluck().get();
    expect(rows()).toBe(2);
    write(root, 'd/c.txt', 'c');
    importTree(store, root);
    expect(rows()).toBe(3);
    renameSync(join(root, 'd'), join(root, 'e'));
    importTree(store, root);
    expect(store.fs.readdir('/')).toEqual(['a.txt', 'e']);
    expect(rows()).toBe(3);
  });
});
