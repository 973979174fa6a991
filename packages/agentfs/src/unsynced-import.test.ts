import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { importTree } from './import-tree.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';
import { unsyncedMarkPath } from './unsynced-import.js';

const BOOT_ID = '/proc/sys/kernel/random/boot_id';
const knowsBoot = existsSync(BOOT_ID);
const boot = knowsBoot ? readFileSync(BOOT_ID, 'utf8').trim() : '';

function writeTree(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    mkdirSync(join(root, `d${i % 7}`), { recursive: true });
    writeFileSync(join(root, `d${i % 7}`, `f${i}.txt`), `file ${i}\n`.repeat(20));
  }
}

/** What the store's commits did between two batches of an import: their `synchronous`, and whether a mark was beside it. */
function importWatching(store: AgentFS, root: string): { synchronous: Set<unknown>; marked: Set<boolean> } {
  const seen = { synchronous: new Set<unknown>(), marked: new Set<boolean>() };
  importTree(store, root, {
    batchSize: 25,
    onProgress: (progress) => {
      if (progress.phase !== 'import' || progress.done === 0) return;
      seen.synchronous.add(store.db.pragma('synchronous', { simple: true }));
      seen.marked.add(existsSync(unsyncedMarkPath(store.path)));
    },
  });
  return seen;
}

/** A process that has ended: its pid is free (or another's, which the mark would not name). */
function endedPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function until(what: string, condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A store filled by a first import, then closed, once the import's own mark is gone; its path. */
async function importedStore(dir: string, files = 60): Promise<string> {
  const root = makeTempDir();
  writeTree(root, files);
  const store = AgentFS.open(join(dir, 'stable.db'));
  try {
    importTree(store, root, { batchSize: 25 });
  } finally {
    store.close();
  }
  const path = join(dir, 'stable.db');
  await until('the import to be synced', () => !existsSync(unsyncedMarkPath(path)));
  return path;
}

describe.skipIf(!knowsBoot)('a first import that does not wait for the disk', () => {
  it('commits its batches without syncing while a mark says so, and a child syncs and removes the mark after', async () => {
    const root = makeTempDir();
    writeTree(root, 120);
    const store = openTempStore();
    const seen = importWatching(store, root);
    expect([...seen.synchronous]).toEqual([0]);
    expect([...seen.marked]).toEqual([true]);
    // back to syncing every commit, and the mark goes once the child has synced what the import wrote
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    await until('the mark to go', () => !existsSync(unsyncedMarkPath(store.path)));
    expect(store.fs.readFile('/d3/f3.txt', 'utf8')).toBe('file 3\n'.repeat(20));
  });

  it('syncs every commit when the database already holds anything, or when the store is not new', () => {
    const root = makeTempDir();
    writeTree(root, 120);
    const keyed = openTempStore();
    keyed.kv.set('kept', 'a value the user wrote');
    const seen = importWatching(keyed, root);
    expect([...seen.synchronous]).toEqual([2]);
    expect([...seen.marked]).toEqual([false]);

    const imported = openTempStore();
    importTree(imported, root, { batchSize: 25 });
    writeTree(join(root, 'more'), 120);
    const again = importWatching(imported, root);
    expect([...again.marked]).toEqual([false]);
  });

  it('leaves the mark alone while the process it names runs', async () => {
    const path = await importedStore(makeTempDir());
    writeFileSync(unsyncedMarkPath(path), JSON.stringify({ boot, pid: process.pid }));
    const store = AgentFS.open(path);
    store.close();
    expect(existsSync(unsyncedMarkPath(path))).toBe(true);
  });

  it('syncs and removes a mark of this boot whose process has ended, keeping the database', async () => {
    const path = await importedStore(makeTempDir());
    writeFileSync(unsyncedMarkPath(path), JSON.stringify({ boot, pid: endedPid() }));
    const store = AgentFS.open(path);
    try {
      expect(existsSync(unsyncedMarkPath(path))).toBe(false);
      expect(store.fs.readFile('/d3/f3.txt', 'utf8')).toBe('file 3\n'.repeat(20));
    } finally {
      store.close();
    }
  });

  it('moves a database aside whose import the machine stopped before it reached the disk, and warns', async () => {
    for (const mark of [JSON.stringify({ boot: 'an-earlier-boot', pid: 1 }), '{"boot": "half wri']) {
      const dir = makeTempDir();
      const path = await importedStore(dir);
      writeFileSync(`${path}-journal`, 'a journal the crash left');
      writeFileSync(unsyncedMarkPath(path), mark);
      const warnings: Error[] = [];
      const listen = (warning: Error) => warnings.push(warning);
      process.on('warning', listen);
      let store: AgentFS;
      try {
        store = AgentFS.open(path);
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off('warning', listen);
      }
      try {
        // a new, empty database for the next import; the old one kept beside it with its journal
        expect(store.fs.readdir('/')).toEqual([]);
        expect(existsSync(unsyncedMarkPath(path))).toBe(false);
        const aside = readdirSync(dir).filter((name) => name.startsWith('stable.db.unsynced-'));
        expect(aside.some((name) => name.endsWith('-journal'))).toBe(true);
        const keptName = aside.find((name) => !/-(journal|wal|shm)$/.test(name))!;
        const copy = join(makeTempDir(), 'kept.db');
        copyFileSync(join(dir, keptName), copy);
        const kept = AgentFS.open(copy, { readonly: true });
        try {
          expect(kept.fs.readFile('/d3/f3.txt', 'utf8')).toBe('file 3\n'.repeat(20));
        } finally {
          kept.close();
        }
        expect(warnings.map((w) => w.message).join('\n')).toMatch(/when the machine stopped.*kept as .*stable\.db\.unsynced-/);
      } finally {
        store.close();
      }
    }
  });
});
