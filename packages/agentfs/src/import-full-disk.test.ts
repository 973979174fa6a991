import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTree, importTreeAsync } from './import-tree.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

/** A tree of `count` files of 16 KiB each (about 4 pages of the store apiece). */
function treeOf(count: number): string {
  const root = makeTempDir();
  for (let i = 0; i < count; i++) {
    mkdirSync(join(root, `dir${i % 7}`), { recursive: true });
    writeFileSync(join(root, `dir${i % 7}`, `file${i}.txt`), `${i}`.padEnd(16 * 1024, 'x'));
  }
  return root;
}

const walSize = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

// SQLite says a database that reaches its `max_page_count` is full exactly as it says a full disk is (SQLITE_FULL)
describe('an import that fills the disk', () => {
  for (const [name, run] of [
    ['importTree', async (store: Parameters<typeof importTree>[0], root: string) => importTree(store, root)],
    ['importTreeAsync', importTreeAsync],
  ] as const)
    it(`fails with the full disk's error, gives the space its log took back, and keeps what was there (${name})`, async () => {
      const store = openTempStore();
      const small = treeOf(3);
      importTree(store, small);
      const before = store.db.pragma('page_count', { simple: true }) as number;
      // a small page cache writes the batch to the log as it goes, as a large import does
      store.db.pragma('cache_size = 16');
      store.db.pragma(`max_page_count = ${before + 300}`);
      const large = treeOf(400);
      await expect(run(store, large)).rejects.toMatchObject({ code: 'SQLITE_FULL' });
      expect(store.db.inTransaction).toBe(false);
      expect(walSize(store.db.name)).toBe(0);
      // what the store held before is all still there
      expect(store.fs.readdir('/').sort()).toEqual(['dir0', 'dir1', 'dir2']);
      expect(store.fs.readFile('/dir0/file0.txt', 'utf8')).toBe('0'.padEnd(16 * 1024, 'x'));
      // with room again, the import goes through
      store.db.pragma('max_page_count = 1073741823');
      const done = await run(store, large);
      expect(done.files).toBe(400);
    });
});

/**
 * A file that says it holds 15 TiB (sparse: it takes no room), for an import no ordinary disk has room for; undefined
 * where the file system cannot make one that large.
 */
function hugeSparseFile(root: string): string | undefined {
  const path = join(root, 'huge.bin');
  const fd = openSync(path, 'w');
  try {
    ftruncateSync(fd, 15 * 1024 ** 4);
    return path;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

describe('an import its disk has no room for', () => {
  it('is refused before anything is written, saying how much it needs and how much there is', async (test) => {
    const store = openTempStore();
    const root = treeOf(3);
    importTree(store, root);
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    writeFileSync(join(root, 'dir0', 'new.txt'), 'new\n');
    const huge = hugeSparseFile(root);
    if (huge === undefined) return test.skip("the temp folder's file system cannot hold a 15 TiB (sparse) file");
    const { bavail, bsize } = statfsSync(root);
    if (bavail * bsize > 14 * 1024 ** 4) return test.skip("the temp folder's disk has room for 15 TiB");
    for (const run of [importTree, importTreeAsync])
      await expect(async () => run(store, root)).rejects.toMatchObject({
        code: 'ENOSPC',
        message: expect.stringMatching(/importing 15 TB of files needs about \d+ TB free beside .*, and its disk has [\d.]+ [MGT]B/),
      });
    expect(store.db.pragma('page_count', { simple: true })).toBe(pages);
    expect(walSize(store.db.name)).toBe(0);
    expect(store.fs.readdir('/dir0').sort()).toEqual(['file0.txt']);
    // once the file is gone, the rest goes in
    rmSync(huge);
    expect(importTree(store, root).added).toBe(1);
    expect(store.fs.readFile('/dir0/new.txt', 'utf8')).toBe('new\n');
  });
});
