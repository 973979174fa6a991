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

/** Imports `root` in batches of 25 and returns the journal modes the store was in between its batches. */
function journalModesDuring(store: AgentFS, root: string): unknown[] {
  const modes = new Set<unknown>();
  importTree(store, root, {
    batchSize: 25,
    onProgress: (progress) => {
      if (progress.phase === 'import' && progress.done > 0) modes.add(store.db.pragma('journal_mode', { simple: true }));
    },
  });
  return [...modes];
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

  it('a first import writes with a rollback journal while it has the database alone, then returns to the log', () => {
    const root = makeTempDir();
    writeTree(root, 120);
    const dir = makeTempDir();
    const store = openTempStore('stable.db', dir);
    const before = settingsOf(store);
    expect(journalModesDuring(store, root)).toEqual(['delete']);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(settingsOf(store)).toEqual(before);
    // a later import that writes as much keeps the log: the store is not fresh any more
    writeTree(join(root, 'more'), 120);
    expect(journalModesDuring(store, root)).toEqual(['wal']);
    const reopened = AgentFS.open(join(dir, 'stable.db'), { readonly: true });
    try {
      expect(reopened.fs.readFile('/more/d3/f3.txt', 'utf8')).toBe('file 3\n'.repeat(50));
    } finally {
      reopened.close();
    }
  });

  it('keeps the log when another connection has the database open, and lets one open while it writes', () => {
    const root = makeTempDir();
    writeTree(root, 120);
    const dir = makeTempDir();
    const store = openTempStore('stable.db', dir);
    const other = AgentFS.open(join(dir, 'stable.db'));
    expect(journalModesDuring(store, root)).toEqual(['wal']);
    expect(other.fs.readFile('/d3/f3.txt', 'utf8')).toBe('file 3\n'.repeat(50));
    other.close();

    // a connection that opens between two batches of a first import reads what is committed, and the import ends
    const second = makeTempDir();
    const fresh = openTempStore('stable.db', second);
    let late: AgentFS | undefined;
    const seen: number[] = [];
    try {
      const summary = importTree(fresh, root, {
        batchSize: 25,
        onProgress: (progress) => {
          if (progress.phase !== 'import' || progress.done === 0) return;
          late ??= AgentFS.open(join(second, 'stable.db'));
          seen.push(late.fs.readdir('/').length);
        },
      });
      expect(summary.added).toBe(127);
      expect(seen.length).toBeGreaterThan(1);
      expect(late!.fs.readFile('/d6/f6.txt', 'utf8')).toBe('file 6\n'.repeat(50));
    } finally {
      late?.close();
    }
    expect(fresh.db.pragma('journal_mode', { simple: true })).toBe('wal');
  });
});
