import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { Overlay } from './overlay.js';
import { codeOf, errorOf } from './test-support/error-code.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

describe('opening databases, and input the store refuses', () => {
  it('a file that is not SQLite is refused with EINVAL and left as it was', () => {
    const path = join(makeTempDir(), 'notes.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    const before = readFileSync(path);
    const error = errorOf(() => AgentFS.open(path));
    expect(error.code).toBe('EINVAL');
    expect(error.message).toContain('not a SQLite database');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it("another application's SQLite database is refused, and no AgentFS table is added to it", () => {
    const path = join(makeTempDir(), 'app.db');
    const other = new Database(path);
    other.exec(`CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')`);
    other.close();
    const error = errorOf(() => AgentFS.open(path));
    expect(error.code).toBe('EINVAL');
    expect(error.message).toContain('another application');
    const check = new Database(path, { readonly: true });
    const tables = check.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all();
    expect(tables).toEqual([{ name: 'users' }]);
    expect(check.prepare('SELECT name FROM users').all()).toEqual([{ name: 'ada' }]);
    check.close();
  });

  it('a database in a folder that does not exist is ENOENT, naming the folder as the cause', () => {
    const error = errorOf(() => AgentFS.open(join(makeTempDir(), 'missing', 'store.db')));
    expect(error.code).toBe('ENOENT');
    expect(error.message).toContain('folder does not exist');
  });

  it('a folder given as the database is EINVAL', () => {
    expect(codeOf(() => AgentFS.open(makeTempDir()))).toBe('EINVAL');
  });

  it('writeFile refuses data that is neither text nor bytes, and writes nothing', () => {
    const store = openTempStore();
    for (const data of [42, null, undefined, { a: 1 }, [1, 2]]) {
      const error = errorOf(() => store.fs.writeFile('/x.txt', data as never));
      expect(error.code).toBe('EINVAL');
      expect(error.message).toMatch(/string or a Uint8Array/);
    }
    expect(store.fs.exists('/x.txt')).toBe(false);
    const overlay = Overlay.open(join(makeTempDir(), 'upper.db'), store);
    expect(codeOf(() => overlay.fs.writeFile('/y.txt', 7 as never))).toBe('EINVAL');
    expect(overlay.changes()).toEqual([]);
    overlay.close();
  });

  it('file-system, kv and tool-log calls on a closed store or overlay are EBADF', () => {
    const store = openTempStore();
    store.fs.writeFile('/a.txt', 'a');
    const overlay = Overlay.open(join(makeTempDir(), 'upper.db'), store);
    overlay.close();
    expect(codeOf(() => overlay.fs.readFile('/a.txt'))).toBe('EBADF');
    store.close();
    const calls = [
      () => store.fs.readFile('/a.txt'),
      () => store.fs.writeFile('/b.txt', 'b'),
      () => store.fs.readdir('/'),
      () => store.fs.stat('/a.txt'),
    ];
    calls.push(
      () => store.kv.get('k'),
      () => store.kv.set('k', 1),
      () => store.tools.list(),
      () => overlay.kv.list(),
    );
    for (const call of calls) {
      const error = errorOf(call);
      expect(error.code).toBe('EBADF');
      expect(error.message).toContain('the store is closed');
    }
  });

  it('an overlay cannot be opened over a closed base', () => {
    const base = openTempStore();
    base.close();
    expect(base.isOpen).toBe(false);
    const error = errorOf(() => Overlay.open(join(makeTempDir(), 'upper.db'), base));
    expect(error.code).toBe('EINVAL');
    expect(error.message).toContain('is closed');
  });
});
