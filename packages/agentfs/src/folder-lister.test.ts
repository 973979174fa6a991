import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type FolderLister, listerHere, listerOnWorker } from './folder-lister.js';
import type { FolderListing } from './folder-listing.js';
import { importTree } from './import-tree.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

/** A tree with every kind of entry a listing meets: folders, files, a link, a FIFO, names that are not UTF-8. */
function makeTree(): { root: string; folders: string[] } {
  const root = makeTempDir();
  const folders = [''];
  for (let p = 0; p < 4; p++) {
    folders.push(`p${p}`);
    mkdirSync(join(root, `p${p}`));
    for (let f = 0; f < 30; f++) writeFileSync(join(root, `p${p}`, `f${f}.txt`), `${p}/${f}\n`);
    for (let s = 0; s < 3; s++) {
      folders.push(`p${p}/s${s}`);
      mkdirSync(join(root, `p${p}`, `s${s}`));
      writeFileSync(join(root, `p${p}`, `s${s}`, 'deep.txt'), 'deep\n');
    }
  }
  symlinkSync('p0/f0.txt', join(root, 'link'));
  execFileSync('mkfifo', [join(root, 'pipe')]);
  writeFileSync(Buffer.from(`${root}/bad\xffname.txt`, 'latin1'), 'bytes\n');
  writeFileSync(join(root, 'real\ufffd.txt'), 'a real replacement character\n');
  return { root, folders };
}

function listAll(lister: FolderLister, folders: string[]): FolderListing[] {
  lister.request(folders);
  return folders.map(() => lister.next());
}

/** Lists `folders` on the walk's thread, then through a worker, expecting the same; returns the listings. */
function expectSameFromWorker(root: string, folders: string[]): FolderListing[] {
  const here = listAll(listerHere(root), folders);
  const worker = listerOnWorker(root);
  try {
    expect(listAll(worker, folders)).toEqual(here);
  } finally {
    worker.close();
  }
  return here;
}

/** Waits (with a bound that only catches a hang) until the lister's other thread has listed `count` folders. */
async function untilListedElsewhere(lister: FolderLister, count: number): Promise<void> {
  for (const started = Date.now(); lister.listedElsewhere() < count; await sleep(10))
    if (Date.now() - started > 60_000) throw new Error(`the worker listed ${lister.listedElsewhere()} of ${count} folders in a minute`);
}

describe('folder listers', () => {
  it('a worker lists exactly what the walk would list itself, names that are not UTF-8 included', () => {
    const { root, folders } = makeTree();
    const here = expectSameFromWorker(root, folders);
    const top = here[0]!;
    expect(top.notUtf8?.size).toBe(1);
    expect(top.names).toContain('bad\\xffname.txt');
    expect(top.names).toContain('real\ufffd.txt');
    expect(top.kinds[top.names.indexOf('pipe')]).toBe(0);
  });

  it('the worker lists ahead of the walk, and the walk lists what is left itself once it is closed', async () => {
    const { root, folders } = makeTree();
    const lister = listerOnWorker(root);
    try {
      lister.request(folders);
      await untilListedElsewhere(lister, folders.length);
      // listed before this removal: the listings still hold the file
      rmSync(join(root, 'p0', 'f1.txt'));
      rmSync(join(root, 'p1', 'f1.txt'));
      expect(lister.next().rel).toBe('');
      expect(lister.next().names).toContain('f1.txt');
      lister.close();
      // listed now, by the walk
      expect(lister.next().names).not.toContain('f1.txt');
    } finally {
      lister.close();
    }
  });

  it('a folder that cannot be listed, or is gone by its turn, is reported the same by both', () => {
    const { root, folders } = makeTree();
    rmSync(join(root, 'p2'), { recursive: true });
    const here = expectSameFromWorker(root, folders);
    expect(here[folders.indexOf('p2')]!.error?.code).toBe('ENOENT');
  });

  it('an import that lists on a worker makes the same store and summary as one that does not', () => {
    const summaries = [true, false].map((listAhead) => {
      const { root } = makeTree();
      const store = openTempStore('stable.db', makeTempDir());
      const first = importTree(store, root, { listAhead });
      writeFileSync(join(root, 'p3', 'f0.txt'), 'changed\n');
      rmSync(join(root, 'p1'), { recursive: true, force: true });
      const again = importTree(store, root, { listAhead });
      const files = store.db.prepare('SELECT count(*) FROM fs_dentry').pluck().get();
      store.close();
      return { first, again, files };
    });
    expect(summaries[0]).toEqual(summaries[1]);
    expect(summaries[0]!.first.files).toBeGreaterThan(100);
  });
});
