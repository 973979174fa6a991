import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';
import { writeBack } from './write-back.js';

describe('writeBack with skipUnchanged', () => {
  it('reports a path the disk already holds as written, without writing it or checking it against what was expected', () => {
    const root = makeTempDir();
    const store = openTempStore('stable.db', makeTempDir());
    store.fs.writeFile('/same.txt', 'agent\n');
    store.fs.writeFile('/new.txt', 'new\n');
    store.fs.chmod('/same.txt', 0o644);
    writeFileSync(join(root, 'same.txt'), 'agent\n', { mode: 0o644 });
    const before = statSync(join(root, 'same.txt')).ino;
    const expected = new Map([
      ['same.txt', { kind: 'absent' as const }],
      ['new.txt', { kind: 'absent' as const }],
    ]);
    const result = writeBack(store.fs, root, ['same.txt', 'new.txt'], { expected, skipUnchanged: true });
    expect(result).toMatchObject({ written: ['new.txt', 'same.txt'], moved: [], failed: [] });
    expect(statSync(join(root, 'same.txt')).ino).toBe(before);
    expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe('new\n');
  });

  it('still checks, and leaves alone, a path that differs from both the store and what was expected', () => {
    const root = makeTempDir();
    const store = openTempStore('stable.db', makeTempDir());
    store.fs.writeFile('/a.txt', 'agent\n');
    writeFileSync(join(root, 'a.txt'), 'human\n');
    const expected = new Map([['a.txt', { kind: 'absent' as const }]]);
    const result = writeBack(store.fs, root, ['a.txt'], { expected, skipUnchanged: true });
    expect(result.written).toEqual([]);
    expect(result.moved.map((m) => m.path)).toEqual(['a.txt']);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('human\n');
  });

  it('refuses a protected path only when it would be written', () => {
    const root = makeTempDir();
    const store = openTempStore('stable.db', makeTempDir());
    mkdirSync(join(root, '.git'));
    store.fs.mkdir('/.git');
    store.fs.chmod('/.git', statSync(join(root, '.git')).mode & 0o7777);
    expect(writeBack(store.fs, root, ['.git'], { skipUnchanged: true }).written).toEqual(['.git']);
    store.fs.writeFile('/.git/config', 'x\n');
    expect(() => writeBack(store.fs, root, ['.git/config'], { skipUnchanged: true })).toThrow(/protected path/);
  });

  it('makes each folder once for the files written into it, and a folder that is missing as well', () => {
    const root = makeTempDir();
    const store = openTempStore('stable.db', makeTempDir());
    for (const name of ['a', 'b', 'c']) store.fs.writeFile(`/deep/er/${name}.txt`, `${name}\n`);
    const result = writeBack(store.fs, root, ['deep/er/a.txt', 'deep/er/b.txt', 'deep/er/c.txt']);
    expect(result.written).toEqual(['deep/er/a.txt', 'deep/er/b.txt', 'deep/er/c.txt']);
    expect(readFileSync(join(root, 'deep/er/c.txt'), 'utf8')).toBe('c\n');
  });
});
