import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { undoAccept } from './accept.js';
import { AgentFS } from './agentfs.js';
import { type EntryState, hashContent, readDiskState, stateOf } from './entry-state.js';
import { importPath } from './import-paths.js';
import { importTree } from './import-tree.js';
import { Ledger } from './ledger.js';
import { materialize } from './materialize.js';
import { Overlay } from './overlay.js';
import { decodePreImages, encodePreImages } from './pre-images.js';
import { codeOf, errorOf } from './test-support/error-code.js';
import { openTempOverlay, openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';
import { writeBack } from './write-back.js';

/** A project folder on disk mirrored into a store. */
function mirrored(files: Record<string, string>) {
  const root = makeTempDir();
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const store = openTempStore('stable.db', makeTempDir());
  importTree(store, root);
  return { root, store };
}

describe('writeBack never overwrites an edit it has not seen', () => {
  it('writes what the disk still holds as expected, and returns the rest as moved, before writing anything', () => {
    const { root, store } = mirrored({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const expected = new Map([
      ['a.txt', stateOf(store.fs, '/a.txt')],
      ['b.txt', stateOf(store.fs, '/b.txt')],
    ]);
    store.fs.writeFile('/a.txt', 'a from the store\n');
    store.fs.writeFile('/b.txt', 'b from the store\n');
    writeFileSync(join(root, 'b.txt'), 'b edited by hand\n');
    const result = writeBack(store.fs, root, ['a.txt', 'b.txt'], { expected });
    expect(result.written).toEqual(['a.txt']);
    expect(result.moved.map((m) => m.path)).toEqual(['b.txt']);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('a from the store\n');
    expect(readFileSync(join(root, 'b.txt'), 'utf8')).toBe('b edited by hand\n');
  });

  it('counts an absent path as an expectation too', () => {
    const { root, store } = mirrored({});
    store.fs.writeFile('/new.txt', 'from the store');
    writeFileSync(join(root, 'new.txt'), 'made by hand meanwhile');
    const result = writeBack(store.fs, root, ['new.txt'], { expected: new Map([['new.txt', { kind: 'absent' as const }]]) });
    expect(result.moved).toHaveLength(1);
    expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe('made by hand meanwhile');
  });
});

describe('protected paths are protected below the orchestrator', () => {
  it('overlays refuse to create .git, .agentfs or .cairn entries', () => {
    const { overlay } = openTempOverlay();
    expect(codeOf(() => overlay.fs.writeFile('/.git/HEAD', 'ref: evil'))).toBe('EPERM');
    expect(codeOf(() => overlay.fs.writeFile('/.agentfs/stable.db', 'x'))).toBe('EPERM');
    expect(codeOf(() => overlay.fs.mkdir('/sub/.cairn', { recursive: true }))).toBe('EPERM');
    overlay.fs.writeFile('/ok.txt', 'x');
    expect(codeOf(() => overlay.fs.rename('/ok.txt', '/.git'))).toBe('EPERM');
    expect(codeOf(() => overlay.fs.symlink('ok.txt', '/.cairn'))).toBe('EPERM');
  });

  it('writeBack refuses them whatever the store holds, and materialize leaves them out', () => {
    const root = makeTempDir();
    const store = openTempStore();
    store.fs.writeFile('/.git/HEAD', 'ref: refs/heads/evil');
    expect(errorOf(() => writeBack(store.fs, root, ['.git/HEAD'])).code).toBe('EPERM');
    expect(existsSync(join(root, '.git'))).toBe(false);
    materialize(store.fs, join(root, 'ws'));
    expect(existsSync(join(root, 'ws', '.git'))).toBe(false);
  });
});

describe('accept modes', () => {
  it('a dry run decides without writing; an atomic accept applies nothing when a path conflicts', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'one\n');
    base.fs.writeFile('/b.txt', 'two\n');
    overlay.fs.writeFile('/a.txt', 'ONE\n');
    overlay.fs.writeFile('/b.txt', 'TWO\n');
    base.fs.writeFile('/b.txt', 'two, edited\n');
    const dry = overlay.accept({ dryRun: true });
    expect(dry.applied.map((a) => a.path)).toEqual(['a.txt']);
    expect(dry.conflicts.map((c) => c.path)).toEqual(['b.txt']);
    expect(base.fs.readFile('/a.txt', 'utf8')).toBe('one\n');
    expect(overlay.changes()).toHaveLength(2);
    const atomic = overlay.accept({ atomic: true });
    expect(atomic.applied).toEqual([]);
    expect(atomic.conflicts.map((c) => c.path)).toEqual(['b.txt']);
    expect(base.fs.readFile('/a.txt', 'utf8')).toBe('one\n');
    const kept = overlay.accept({ paths: ['a.txt'], settle: false });
    expect(kept.applied.map((a) => a.path)).toEqual(['a.txt']);
    expect(overlay.upper.fs.exists('/a.txt')).toBe(true);
    overlay.settle(['a.txt']);
    expect(overlay.upper.fs.exists('/a.txt')).toBe(false);
    expect(overlay.fs.readFile('/a.txt', 'utf8')).toBe('ONE\n');
  });

  it("an accept inside an outer transaction that rolls back keeps the agent's change when not settled", () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'one\n');
    overlay.fs.writeFile('/a.txt', 'ONE\n');
    expect(() =>
      base.transaction(() => {
        overlay.accept({ settle: false });
        throw new Error('the caller changed its mind');
      }),
    ).toThrow('changed its mind');
    expect(base.fs.readFile('/a.txt', 'utf8')).toBe('one\n');
    expect(overlay.changes().map((c) => c.path)).toEqual(['a.txt']);
  });
});

describe('pre-images are durable', () => {
  it('round-trip through bytes and undo an accept in a later process', () => {
    const { base, overlay, dir } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'one\n', { mode: 0o755 });
    overlay.fs.writeFile('/a.txt', 'ONE\n');
    overlay.fs.writeFile('/bin.dat', new Uint8Array([0, 1, 2, 255]));
    const result = overlay.accept();
    const bytes = encodePreImages(result.preImages);
    overlay.close();
    base.close();
    const reopened = AgentFS.open(join(dir, 'stable.db'));
    try {
      const decoded = decodePreImages(bytes);
      expect(decoded).toEqual(result.preImages);
      expect(undoAccept(reopened.fs, decoded).conflicts).toEqual([]);
      expect(reopened.fs.readFile('/a.txt', 'utf8')).toBe('one\n');
      expect(reopened.fs.exists('/bin.dat')).toBe(false);
    } finally {
      reopened.close();
    }
  });

  it('refuses damaged bytes', () => {
    expect(codeOf(() => decodePreImages(Buffer.from('{"format":"other"}')))).toBe('ECORRUPT');
    const good = Buffer.from(
      encodePreImages([
        { path: 'a', before: { kind: 'absent' }, after: { kind: 'file', mode: 0o100644, hash: 'x'.repeat(64), content: Buffer.from('a') } },
      ]),
    );
    expect(codeOf(() => decodePreImages(good))).toBe('ECORRUPT');
    const image = { path: 'a', before: { kind: 'absent' as const }, after: fileState('abc') };
    const bytes = Buffer.from(encodePreImages([image]));
    expect(decodePreImages(bytes)).toEqual([image]);
    expect(codeOf(() => decodePreImages(bytes.subarray(0, bytes.length - 1)))).toBe('ECORRUPT');
    expect(codeOf(() => decodePreImages(Buffer.concat([bytes, Buffer.from('x')])))).toBe('ECORRUPT');
  });

  it('keeps the contents as raw bytes after a JSON header line, and still reads the first version (base64 inside the JSON)', () => {
    const images = [
      { path: 'a\nb.txt', before: fileState('one\n'), after: fileState('two\n') },
      { path: 'bin', before: { kind: 'dir' as const, mode: 0o40755 }, after: { kind: 'absent' as const } },
      { path: 'raw', before: { kind: 'absent' as const }, after: fileState(Buffer.from([0, 10, 255])) },
    ];
    const bytes = Buffer.from(encodePreImages(images));
    const newline = bytes.indexOf(10);
    expect(JSON.parse(bytes.toString('utf8', 0, newline)).version).toBe(2);
    expect(bytes.subarray(newline + 1).toString('latin1')).toBe('one\ntwo\n\u0000\n\u00ff');
    expect(decodePreImages(bytes)).toEqual(images);
    const inline = (state: EntryState) =>
      state.kind === 'file' || state.kind === 'symlink' ? { ...state, content: state.content.toString('base64') } : state;
    const first = JSON.stringify({
      format: 'cairn-pre-images',
      version: 1,
      images: images.map((i) => ({ path: i.path, before: inline(i.before), after: inline(i.after) })),
    });
    expect(decodePreImages(Buffer.from(first))).toEqual(images);
  });
});

function fileState(content: string | Buffer): EntryState {
  const bytes = Buffer.from(content);
  return { kind: 'file', mode: 0o100644, hash: hashContent(bytes), content: bytes };
}

describe('the ledger keeps every retired overlay apart', () => {
  it('names trash files by row id, so two retires at the same moment never collide, and closes the overlay first', () => {
    const dir = makeTempDir();
    const ledger = Ledger.open(join(dir, 'bin.db'), { clock: () => 5 });
    const base = AgentFS.open(join(dir, 'stable.db'));
    try {
      const first = Overlay.open(join(dir, 'agent-1.db'), base);
      first.fs.writeFile('/first.txt', 'first');
      const a = ledger.retire('1', first, 'one');
      expect(first.upper.isOpen).toBe(false);
      const second = Overlay.open(join(dir, 'agent-1.db'), base);
      second.fs.writeFile('/second.txt', 'second');
      const b = ledger.retire('1', second, 'two');
      expect(a.retiredPath).not.toBe(b.retiredPath);
      expect(a.originalPath.startsWith('/')).toBe(true);
      ledger.restore(a.id);
      const back = Overlay.open(join(dir, 'agent-1.db'), base);
      expect(back.fs.exists('/first.txt')).toBe(true);
      expect(back.fs.exists('/second.txt')).toBe(false);
      back.close();
    } finally {
      ledger.close();
      base.close();
    }
  });
});

describe('symbolic links cannot carry a write past a check', () => {
  it('realpath resolves links, allows a missing last name, and refuses links out of the tree', () => {
    const { overlay } = openTempOverlay();
    overlay.fs.writeFile('/.env', 'SECRET=1');
    overlay.fs.mkdir('/src');
    overlay.fs.symlink('../.env', '/src/env');
    overlay.fs.symlink('/etc/passwd', '/src/abs');
    overlay.fs.symlink('../../outside', '/src/up');
    overlay.fs.symlink('loop2', '/src/loop1');
    overlay.fs.symlink('loop1', '/src/loop2');
    expect(overlay.fs.realpath('/src/env')).toBe('/.env');
    expect(overlay.fs.realpath('/src/new.txt')).toBe('/src/new.txt');
    expect(codeOf(() => overlay.fs.realpath('/src/abs'))).toBe('EPERM');
    expect(codeOf(() => overlay.fs.realpath('/src/up'))).toBe('EPERM');
    expect(codeOf(() => overlay.fs.realpath('/src/loop1'))).toBe('ELOOP');
    expect(codeOf(() => overlay.fs.realpath('/missing/x'))).toBe('ENOENT');
  });

  it('no-follow writes touch exactly the path given', () => {
    const { overlay } = openTempOverlay();
    overlay.fs.writeFile('/.env', 'SECRET=1');
    overlay.fs.mkdir('/src');
    overlay.fs.symlink('../.env', '/src/env');
    expect(codeOf(() => overlay.fs.writeFile('/src/env', 'stolen', { noFollow: true }))).toBe('ELOOP');
    expect(overlay.fs.readFile('/.env', 'utf8')).toBe('SECRET=1');
    overlay.fs.symlink('src', '/lnk');
    expect(codeOf(() => overlay.fs.writeFile('/lnk/x.txt', 'x', { noFollow: true }))).toBe('ELOOP');
    expect(codeOf(() => overlay.fs.mkdir('/lnk/d', { recursive: true, noFollow: true }))).toBe('ELOOP');
    overlay.fs.writeFile('/src/x.txt', 'x', { noFollow: true });
    expect(codeOf(() => overlay.fs.rename('/src/x.txt', '/lnk/y.txt', { noFollow: true }))).toBe('ELOOP');
  });
});

describe('one set of import rules for every entry point', () => {
  it('importPath honours .gitignore and never imports protected names', () => {
    const { root, store } = mirrored({ '.gitignore': 'build/\n*.log\n', 'src/a.ts': 'a' });
    mkdirSync(join(root, 'build'), { recursive: true });
    writeFileSync(join(root, 'build/out.js'), 'x');
    writeFileSync(join(root, 'debug.log'), 'x');
    mkdirSync(join(root, '.cairn'), { recursive: true });
    writeFileSync(join(root, '.cairn/config.json'), '{}');
    expect(importPath(store, root, 'build/out.js')).toBe('ignored');
    expect(importPath(store, root, 'debug.log')).toBe('ignored');
    expect(importPath(store, root, '.cairn/config.json')).toBe('ignored');
    expect(importPath(store, root, '.agentfs/stable.db')).toBe('ignored');
    expect(store.fs.exists('/build/out.js')).toBe(false);
    importTree(store, root);
    expect(store.fs.exists('/.cairn')).toBe(false);
    writeFileSync(join(root, 'src/a.ts'), 'changed');
    expect(importPath(store, root, 'src/a.ts')).toBe('updated');
    expect(readDiskState(root, 'src/a.ts').kind).toBe('file');
  });

  it('readDiskState does not follow a final link', () => {
    const root = makeTempDir();
    symlinkSync('/etc/hostname', join(root, 'link'));
    expect(readDiskState(root, 'link').kind).toBe('symlink');
    expect(readDiskState(root, 'nothing').kind).toBe('absent');
  });
});
