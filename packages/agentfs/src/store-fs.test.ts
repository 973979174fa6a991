import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { isAgentFSError } from './errors.js';
import { codeOf } from './test-support/error-code.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

describe('AgentFS file system compliance (FS)', () => {
  it('FS-1 the root is inode 1, a 0o755 directory with nlink 1 and no dentry', () => {
    const store = openTempStore();
    const root = store.fs.stat('/');
    expect(root.ino).toBe(1);
    expect(root.mode).toBe(0o040755);
    expect(root.nlink).toBe(1);
    expect(root.isDirectory()).toBe(true);
    expect(store.db.prepare('SELECT count(*) AS n FROM fs_dentry WHERE ino = 1').get()).toEqual({ n: 0 });
  });

  it('FS-2 writeFile and readFile round-trip bytes and UTF-8 text', () => {
    const { fs } = openTempStore();
    fs.writeFile('/a.txt', 'héllo wörld ✓');
    fs.writeFile('/b.bin', new Uint8Array([0, 1, 2, 255]));
    expect(fs.readFile('/a.txt', 'utf8')).toBe('héllo wörld ✓');
    expect([...fs.readFile('/b.bin')]).toEqual([0, 1, 2, 255]);
    expect(Buffer.isBuffer(fs.readFile('/a.txt'))).toBe(true);
  });

  it('FS-3 writeFile creates missing parent directories', () => {
    const { fs } = openTempStore();
    fs.writeFile('deep/er/still/file.txt', 'x');
    expect(fs.stat('/deep/er/still').isDirectory()).toBe(true);
    expect(fs.readdir('/deep')).toEqual(['er']);
  });

  it('FS-4 content is split into chunk_size chunks, all full but the last, size their sum', () => {
    const store = openTempStore();
    const data = Buffer.alloc(4096 * 2 + 100, 7);
    store.fs.writeFile('/big', data);
    const ino = store.fs.stat('/big').ino;
    const chunks = store.db.prepare('SELECT chunk_index, length(data) AS len FROM fs_data WHERE ino = ? ORDER BY chunk_index').all(ino);
    expect(chunks).toEqual([
      { chunk_index: 0, len: 4096 },
      { chunk_index: 1, len: 4096 },
      { chunk_index: 2, len: 100 },
    ]);
    expect(store.fs.stat('/big').size).toBe(data.length);
    expect(store.fs.readFile('/big').equals(data)).toBe(true);
  });

  it('FS-5 an empty file has size 0 and no chunks', () => {
    const store = openTempStore();
    store.fs.writeFile('/empty', '');
    const ino = store.fs.stat('/empty').ino;
    expect(store.fs.stat('/empty').size).toBe(0);
    expect(store.db.prepare('SELECT count(*) AS n FROM fs_data WHERE ino = ?').get(ino)).toEqual({ n: 0 });
    expect(store.fs.readFile('/empty').length).toBe(0);
  });

  it('FS-6 overwriting replaces content and size, dropping surplus chunks', () => {
    const store = openTempStore();
    store.fs.writeFile('/f', Buffer.alloc(10_000, 1));
    store.fs.writeFile('/f', 'short');
    const ino = store.fs.stat('/f').ino;
    expect(store.fs.readFile('/f', 'utf8')).toBe('short');
    expect(store.fs.stat('/f').size).toBe(5);
    expect(store.db.prepare('SELECT count(*) AS n FROM fs_data WHERE ino = ?').get(ino)).toEqual({ n: 1 });
  });

  it('FS-7 readdir lists names in byte order; ENOTDIR on a file, ENOENT when missing', () => {
    const { fs } = openTempStore();
    for (const name of ['b', 'a', 'B', 'é', 'a b']) fs.writeFile(`/d/${name}`, name);
    expect(fs.readdir('/d')).toEqual(['B', 'a', 'a b', 'b', 'é']);
    expect(codeOf(() => fs.readdir('/d/a'))).toBe('ENOTDIR');
    expect(codeOf(() => fs.readdir('/nope'))).toBe('ENOENT');
  });

  it('FS-8 readdirPlus returns each name with its stats', () => {
    const { fs } = openTempStore();
    fs.writeFile('/d/f', 'abc');
    fs.mkdir('/d/sub');
    const entries = fs.readdirPlus('/d');
    expect(entries.map((e) => [e.name, e.stats.isFile(), e.stats.isDirectory(), e.stats.size])).toEqual([
      ['f', true, false, 3],
      ['sub', false, true, 0],
    ]);
  });

  it('FS-9 stat reports ino, mode, nlink, size and mtime from the injected clock', () => {
    const store = AgentFS.open(join(makeTempDir(), 's.db'), { clock: () => 1_700_000_000_123.456 });
    try {
      store.fs.writeFile('/f', 'hello', { mode: 0o600 });
      const st = store.fs.stat('/f');
      expect(st.mode).toBe(0o100600);
      expect(st.nlink).toBe(1);
      expect(st.size).toBe(5);
      expect(st.mtime).toBe(1_700_000_000);
      expect(st.mtimeNs).toBe(1_700_000_000_123_456_000n);
      expect(st.isFile() && !st.isDirectory() && !st.isSymbolicLink()).toBe(true);
    } finally {
      store.close();
    }
  });

  it('FS-10 mkdir: EEXIST on an existing name, ENOENT without a parent, recursive creates the chain', () => {
    const { fs } = openTempStore();
    fs.mkdir('/a');
    expect(codeOf(() => fs.mkdir('/a'))).toBe('EEXIST');
    expect(codeOf(() => fs.mkdir('/x/y'))).toBe('ENOENT');
    fs.mkdir('/x/y/z', { recursive: true });
    fs.mkdir('/x/y/z', { recursive: true });
    expect(fs.stat('/x/y/z').isDirectory()).toBe(true);
    fs.writeFile('/file', '');
    expect(codeOf(() => fs.mkdir('/file', { recursive: true }))).toBe('EEXIST');
  });

  it('FS-11 rm: files, EISDIR for a directory without recursive, subtrees with it, force on missing, EPERM on the root', () => {
    const store = openTempStore();
    const { fs } = store;
    fs.writeFile('/d/e/f.txt', 'x');
    fs.writeFile('/g.txt', 'y');
    fs.rm('/g.txt');
    expect(fs.exists('/g.txt')).toBe(false);
    expect(codeOf(() => fs.rm('/d'))).toBe('EISDIR');
    fs.rm('/d', { recursive: true });
    expect(fs.readdir('/')).toEqual([]);
    expect(codeOf(() => fs.rm('/missing'))).toBe('ENOENT');
    fs.rm('/missing', { force: true });
    expect(codeOf(() => fs.rm('/', { recursive: true }))).toBe('EPERM');
    expect(store.db.prepare('SELECT count(*) AS n FROM fs_inode').get()).toEqual({ n: 1 });
    expect(store.db.prepare('SELECT count(*) AS n FROM fs_data').get()).toEqual({ n: 0 });
  });

  it('FS-12 unlink refuses directories; rmdir refuses files and non-empty directories', () => {
    const { fs } = openTempStore();
    fs.writeFile('/d/f', 'x');
    expect(codeOf(() => fs.unlink('/d'))).toBe('EISDIR');
    expect(codeOf(() => fs.rmdir('/d'))).toBe('ENOTEMPTY');
    expect(codeOf(() => fs.rmdir('/d/f'))).toBe('ENOTDIR');
    fs.unlink('/d/f');
    fs.rmdir('/d');
    expect(fs.exists('/d')).toBe(false);
  });

  it('FS-13 rename moves files and subtrees and follows POSIX rules for the destination', () => {
    const { fs } = openTempStore();
    fs.writeFile('/a/one.txt', '1');
    fs.writeFile('/a/sub/two.txt', '2');
    const ino = fs.stat('/a/one.txt').ino;
    fs.rename('/a/one.txt', '/one.txt');
    expect(fs.stat('/one.txt').ino).toBe(ino);
    fs.rename('/a', '/b');
    expect(fs.readFile('/b/sub/two.txt', 'utf8')).toBe('2');
    expect(fs.exists('/a')).toBe(false);
    fs.writeFile('/c.txt', 'c');
    fs.rename('/one.txt', '/c.txt');
    expect(fs.readFile('/c.txt', 'utf8')).toBe('1');
    fs.mkdir('/full');
    fs.writeFile('/full/x', 'x');
    expect(codeOf(() => fs.rename('/b', '/full'))).toBe('ENOTEMPTY');
    expect(codeOf(() => fs.rename('/b', '/b/sub/inside'))).toBe('EINVAL');
    expect(codeOf(() => fs.rename('/c.txt', '/b'))).toBe('EISDIR');
    expect(codeOf(() => fs.rename('/b', '/c.txt'))).toBe('ENOTDIR');
    expect(codeOf(() => fs.rename('/missing', '/m2'))).toBe('ENOENT');
    fs.mkdir('/empty');
    fs.rename('/b', '/empty');
    expect(fs.readdir('/empty')).toEqual(['sub']);
  });

  it('FS-14 exists is true for files, directories and resolvable symlinks only', () => {
    const { fs } = openTempStore();
    fs.writeFile('/f', '');
    fs.mkdir('/d');
    fs.symlink('/nowhere', '/dangling');
    expect([fs.exists('/f'), fs.exists('/d'), fs.exists('/dangling'), fs.exists('/nope')]).toEqual([true, true, false, false]);
  });

  it('FS-15 symlinks: readlink, lstat vs stat, reads and writes through links, relative targets, ELOOP', () => {
    const { fs } = openTempStore();
    fs.writeFile('/dir/target.txt', 'content');
    fs.symlink('target.txt', '/dir/rel');
    fs.symlink('/dir', '/abs-dir');
    expect(fs.readlink('/dir/rel')).toBe('target.txt');
    expect(fs.lstat('/dir/rel').isSymbolicLink()).toBe(true);
    expect(fs.lstat('/dir/rel').size).toBe('target.txt'.length);
    expect(fs.stat('/dir/rel').isFile()).toBe(true);
    expect(fs.readFile('/dir/rel', 'utf8')).toBe('content');
    expect(fs.readFile('/abs-dir/target.txt', 'utf8')).toBe('content');
    fs.writeFile('/dir/rel', 'through the link');
    expect(fs.readFile('/dir/target.txt', 'utf8')).toBe('through the link');
    fs.symlink('/loop-b', '/loop-a');
    fs.symlink('/loop-a', '/loop-b');
    expect(codeOf(() => fs.readFile('/loop-a'))).toBe('ELOOP');
    expect(codeOf(() => fs.readlink('/dir/target.txt'))).toBe('EINVAL');
    expect(codeOf(() => fs.symlink('x', '/dir/rel'))).toBe('EEXIST');
  });

  it('FS-16 hard links share an inode; nlink counts names; the inode goes with the last name', () => {
    const store = openTempStore();
    const { fs } = store;
    fs.writeFile('/a', 'shared');
    fs.link('/a', '/b');
    expect(fs.stat('/a').ino).toBe(fs.stat('/b').ino);
    expect(fs.stat('/a').nlink).toBe(2);
    fs.writeFile('/b', 'changed');
    expect(fs.readFile('/a', 'utf8')).toBe('changed');
    fs.unlink('/a');
    expect(fs.stat('/b').nlink).toBe(1);
    fs.unlink('/b');
    expect(store.db.prepare('SELECT count(*) AS n FROM fs_inode').get()).toEqual({ n: 1 });
    fs.mkdir('/d');
    expect(codeOf(() => fs.link('/d', '/d2'))).toBe('EPERM');
  });

  it('FS-17 reads at an offset span chunk boundaries and stop at the end of the file', () => {
    const { fs } = openTempStore();
    const data = Buffer.from(Array.from({ length: 10_000 }, (_, i) => i % 251));
    fs.writeFile('/f', data);
    expect(fs.read('/f', 4090, 20).equals(data.subarray(4090, 4110))).toBe(true);
    expect(fs.read('/f', 9_995, 100).equals(data.subarray(9_995))).toBe(true);
    expect(fs.read('/f', 20_000, 10).length).toBe(0);
    const handle = fs.open('/f');
    expect(handle.pread(0, 3).equals(data.subarray(0, 3))).toBe(true);
    expect(handle.fstat().size).toBe(10_000);
    expect(codeOf(() => fs.read('/f', -1, 2))).toBe('EINVAL');
  });

  it('FS-18 paths normalise; empty paths, NUL bytes and .. above the root are EINVAL', () => {
    const { fs } = openTempStore();
    fs.writeFile('./a//b/./c.txt', 'x');
    expect(fs.readFile('/a/b/c.txt', 'utf8')).toBe('x');
    expect(fs.readFile('a/b/../b/c.txt', 'utf8')).toBe('x');
    expect(fs.readdir('a/b/')).toEqual(['c.txt']);
    expect(codeOf(() => fs.readFile(''))).toBe('EINVAL');
    expect(codeOf(() => fs.readFile('/a/\0b'))).toBe('EINVAL');
    expect(codeOf(() => fs.readFile('../etc/passwd'))).toBe('EINVAL');
    expect(codeOf(() => fs.writeFile('/a/../../x', 'y'))).toBe('EINVAL');
  });

  it('FS-19 EISDIR for reading or writing a directory; ENOTDIR for a file used as a directory', () => {
    const { fs } = openTempStore();
    fs.writeFile('/file', 'x');
    fs.mkdir('/dir');
    expect(codeOf(() => fs.readFile('/dir'))).toBe('EISDIR');
    expect(codeOf(() => fs.writeFile('/dir', 'x'))).toBe('EISDIR');
    expect(codeOf(() => fs.writeFile('/', 'x'))).toBe('EISDIR');
    expect(codeOf(() => fs.writeFile('/file/child', 'x'))).toBe('ENOTDIR');
    expect(codeOf(() => fs.readFile('/file/child'))).toBe('ENOTDIR');
  });

  it('FS-20 chmod changes permission bits and keeps the type', () => {
    const { fs } = openTempStore();
    fs.writeFile('/run.sh', '#!/bin/sh');
    fs.chmod('/run.sh', 0o755);
    expect(fs.stat('/run.sh').mode).toBe(0o100755);
    fs.mkdir('/d');
    fs.chmod('/d', 0o700);
    expect(fs.stat('/d').mode).toBe(0o040700);
  });

  it('FS-21 writeFile keeps the mode of an existing file unless one is given', () => {
    const { fs } = openTempStore();
    fs.writeFile('/x', 'a', { mode: 0o700 });
    fs.writeFile('/x', 'b');
    expect(fs.stat('/x').mode).toBe(0o100700);
    fs.writeFile('/x', 'c', { mode: 0o644 });
    expect(fs.stat('/x').mode).toBe(0o100644);
  });

  it('FS-22 pragmas: WAL, synchronous per durability, a busy timeout', () => {
    const dir = makeTempDir();
    const full = AgentFS.open(join(dir, 'full.db'));
    const normal = AgentFS.open(join(dir, 'normal.db'), { durability: 'normal', busyTimeoutMs: 1234 });
    try {
      expect(full.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(full.db.pragma('synchronous', { simple: true })).toBe(2);
      expect(normal.db.pragma('synchronous', { simple: true })).toBe(1);
      expect(normal.db.pragma('busy_timeout', { simple: true })).toBe(1234);
    } finally {
      full.close();
      normal.close();
    }
  });

  it('FS-23 a second connection sees committed writes and can write too', () => {
    const path = join(makeTempDir(), 'shared.db');
    const first = AgentFS.open(path);
    const second = AgentFS.open(path);
    try {
      first.fs.writeFile('/from-first', '1');
      expect(second.fs.readFile('/from-first', 'utf8')).toBe('1');
      second.fs.writeFile('/from-second', '2');
      expect(first.fs.readdir('/')).toEqual(['from-first', 'from-second']);
    } finally {
      first.close();
      second.close();
    }
  });

  it('FS-24 errors carry code, syscall and path, and a name that survives serialisation', () => {
    const { fs } = openTempStore();
    try {
      fs.readFile('/missing/file');
      expect.unreachable();
    } catch (error) {
      expect(isAgentFSError(error, 'ENOENT')).toBe(true);
      expect(error).toMatchObject({ name: 'AgentFSError', code: 'ENOENT', syscall: 'open', path: '/missing/file' });
      expect(isAgentFSError(JSON.parse(JSON.stringify({ name: (error as Error).name, code: 'ENOENT' })))).toBe(true);
    }
  });

  it('FS-25 the schema holds every v0.4 table and the config rows', () => {
    const store = openTempStore();
    const tables = store.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      .pluck()
      .all();
    expect(tables).toEqual(
      expect.arrayContaining([
        'fs_config',
        'fs_data',
        'fs_dentry',
        'fs_inode',
        'fs_origin',
        'fs_symlink',
        'fs_whiteout',
        'kv_store',
        'tool_calls',
      ]),
    );
    expect(
      tables
        .filter((t) => !String(t).startsWith('fs_') && !['kv_store', 'tool_calls'].includes(String(t)))
        .every((t) => String(t).startsWith('cairn_')),
    ).toBe(true);
    expect(store.db.prepare(`SELECT key, value FROM fs_config ORDER BY key`).all()).toEqual([
      { key: 'chunk_size', value: '4096' },
      { key: 'schema_version', value: '0.4' },
    ]);
  });

  it('FS-26 a store reopened from its file keeps everything', () => {
    const path = join(makeTempDir(), 'reopen.db');
    const first = AgentFS.open(path);
    first.fs.writeFile('/keep/me.txt', 'kept');
    first.close();
    const second = AgentFS.open(path);
    try {
      expect(second.fs.readFile('/keep/me.txt', 'utf8')).toBe('kept');
    } finally {
      second.close();
    }
  });

  it('FS-27 a read-only open refuses writes and a non-AgentFS file is refused', () => {
    const dir = makeTempDir();
    const path = join(dir, 'ro.db');
    AgentFS.open(path).close();
    const ro = AgentFS.open(path, { readonly: true });
    try {
      expect(ro.fs.readdir('/')).toEqual([]);
      expect(() => ro.fs.writeFile('/x', 'y')).toThrow(/readonly/i);
    } finally {
      ro.close();
    }
    expect(codeOf(() => AgentFS.open(join(dir, 'missing.db'), { readonly: true }))).toBe('EINVAL');
  });

  it('FS-28 cached lookups see another connection’s commits', () => {
    const path = join(makeTempDir(), 'cache.db');
    const reader = AgentFS.open(path);
    const writer = AgentFS.open(path);
    try {
      expect(reader.fs.exists('/a/b.txt')).toBe(false);
      writer.fs.writeFile('/a/b.txt', 'made elsewhere');
      expect(reader.fs.readFile('/a/b.txt', 'utf8')).toBe('made elsewhere');
      writer.fs.rename('/a', '/c');
      expect(reader.fs.exists('/a/b.txt')).toBe(false);
      expect(reader.fs.readdir('/c')).toEqual(['b.txt']);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('FS-29 a rolled-back transaction leaves no trace in lookups', () => {
    const store = openTempStore();
    store.fs.writeFile('/kept.txt', 'k');
    expect(() =>
      store.transaction(() => {
        store.fs.writeFile('/phantom/file.txt', 'p');
        store.fs.rm('/kept.txt');
        expect(store.fs.exists('/phantom/file.txt')).toBe(true);
        throw new Error('abort');
      }),
    ).toThrow('abort');
    expect(store.fs.exists('/phantom')).toBe(false);
    expect(store.fs.readFile('/kept.txt', 'utf8')).toBe('k');
  });
});
