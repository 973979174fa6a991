import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { importTree, importTreeAsync } from './import-tree.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

function writeTree(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    mkdirSync(join(root, `d${i % 7}`), { recursive: true });
    writeFileSync(join(root, `d${i % 7}`, `f${i}.txt`), `file ${i}\n`.repeat(50));
  }
}

function settingsOf(store: AgentFS): { synchronous: unknown; checkpoint: unknown } {
  return {
    synchronous: store.db.pragma('synchronous', { simple: true }),
    checkpoint: store.db.pragma('wal_autocheckpoint', { simple: true }),
  };
}

describe('an import that writes', () => {
  it('leaves the connection as it found it, with what it wrote checkpointed into the database file', () => {
    const root = makeTempDir();
    writeTree(root, 120);
    const dir = makeTempDir();
    const store = openTempStore('stable.db', dir);
    const before = settingsOf(store);
    expect(before.synchronous).toBe(2);
    const summary = importTree(store, root, { batchSize: 25 });
    expect(summary.added).toBe(127);
    expect(settingsOf(store)).toEqual(before);
    // the database file alone, without its write-ahead log, holds what the import wrote
    const alone = join(makeTempDir(), 'stable.db');
    copyFileSync(join(dir, 'stable.db'), alone);
    const reopened = AgentFS.open(alone, { readonly: true });
    try {
      expect(reopened.fs.readFile('/d3/f3.txt', 'utf8')).toBe('file 3\n'.repeat(50));
    } finally {
      reopened.close();
    }
  });

  it('restores the connection when it is stopped between two batches, keeping what it committed', async () => {
    const root = makeTempDir();
    writeTree(root, 60);
    const store = openTempStore();
    const before = settingsOf(store);
    const stop = new AbortController();
    let batches = 0;
    const run = importTreeAsync(store, root, {
      batchSize: 10,
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.phase === 'import' && progress.done > 0 && ++batches === 3) stop.abort();
      },
    });
    await expect(run).rejects.toThrow();
    expect(settingsOf(store)).toEqual(before);
    expect(store.fs.readdir('/').length).toBeGreaterThan(0);
    const again = importTree(store, root);
    expect(again.files).toBe(60);
    expect(settingsOf(store)).toEqual(before);
  });
});
