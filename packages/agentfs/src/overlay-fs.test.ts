import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { Overlay } from './overlay.js';
import { codeOf } from './test-support/error-code.js';
import { openTempOverlay } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

const count = (store: AgentFS, table: string): number => store.db.prepare(`SELECT count(*) AS n FROM ${table}`).pluck().get() as number;

describe('overlay compliance (OV)', () => {
  it('OV-1 a new overlay holds nothing of its own and reads fall through to the base', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/src/a.ts', 'export const a = 1;\n');
    expect(overlay.fs.readFile('/src/a.ts', 'utf8')).toBe('export const a = 1;\n');
    expect(overlay.fs.readdir('/')).toEqual(['src']);
    expect(overlay.fs.stat('/src/a.ts').ino).toBe(base.fs.stat('/src/a.ts').ino);
    expect(count(overlay.upper, 'fs_dentry')).toBe(0);
  });

  it('OV-2 writes land in the upper store only', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'base');
    overlay.fs.writeFile('/a.txt', 'agent');
    overlay.fs.writeFile('/new/b.txt', 'added');
    expect(base.fs.readFile('/a.txt', 'utf8')).toBe('base');
    expect(base.fs.exists('/new')).toBe(false);
    expect(overlay.upper.fs.readFile('/a.txt', 'utf8')).toBe('agent');
    expect(overlay.fs.readFile('/new/b.txt', 'utf8')).toBe('added');
  });

  it('OV-3 a copy-up records fs_origin and stat reports the base inode', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/dir/f.txt', 'x', { mode: 0o600 });
    const baseIno = base.fs.stat('/dir/f.txt').ino;
    overlay.fs.writeFile('/dir/f.txt', 'y');
    const upperIno = overlay.upper.fs.stat('/dir/f.txt').ino;
    expect(overlay.upper.db.prepare('SELECT base_ino FROM fs_origin WHERE delta_ino = ?').pluck().get(upperIno)).toBe(baseIno);
    expect(overlay.fs.stat('/dir/f.txt').ino).toBe(baseIno);
    expect(overlay.fs.stat('/dir/f.txt').mode).toBe(0o100600);
    expect(overlay.fs.stat('/dir').ino).toBe(base.fs.stat('/dir').ino);
  });

  it('OV-4 deleting a base file records a whiteout and leaves the base alone', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a/b.txt', 'x');
    overlay.fs.rm('/a/b.txt');
    expect(overlay.fs.exists('/a/b.txt')).toBe(false);
    expect(codeOf(() => overlay.fs.readFile('/a/b.txt'))).toBe('ENOENT');
    expect(overlay.upper.db.prepare('SELECT path, parent_path FROM fs_whiteout').all()).toEqual([{ path: '/a/b.txt', parent_path: '/a' }]);
    expect(base.fs.readFile('/a/b.txt', 'utf8')).toBe('x');
    expect(overlay.fs.readdir('/a')).toEqual([]);
  });

  it('OV-5 creating a whited-out path removes its whiteout', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/top.txt', 'old');
    overlay.fs.rm('/top.txt');
    overlay.fs.writeFile('/top.txt', 'new');
    expect(overlay.fs.readFile('/top.txt', 'utf8')).toBe('new');
    expect(count(overlay.upper, 'fs_whiteout')).toBe(0);
  });

  it('OV-6 listings merge upper and base, minus whiteouts, in byte order', () => {
    const { base, overlay } = openTempOverlay();
    for (const name of ['a', 'c', 'e']) base.fs.writeFile(`/d/${name}`, name);
    overlay.fs.writeFile('/d/b', 'b');
    overlay.fs.writeFile('/d/c', 'C');
    overlay.fs.rm('/d/e');
    expect(overlay.fs.readdir('/d')).toEqual(['a', 'b', 'c']);
    expect(overlay.fs.readdirPlus('/d').map((e) => [e.name, e.stats.size])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ]);
  });

  it('OV-7 removing a base directory hides its whole subtree', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/pkg/src/a.ts', 'a');
    base.fs.writeFile('/pkg/src/b.ts', 'b');
    base.fs.writeFile('/keep.txt', 'k');
    expect(codeOf(() => overlay.fs.rm('/pkg'))).toBe('EISDIR');
    overlay.fs.rm('/pkg', { recursive: true });
    expect(overlay.fs.readdir('/')).toEqual(['keep.txt']);
    expect(overlay.fs.exists('/pkg/src/a.ts')).toBe(false);
    expect(base.fs.readdir('/pkg/src')).toEqual(['a.ts', 'b.ts']);
  });

  it('OV-8 a directory made where a base directory was removed starts empty', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/d/old1', '1');
    base.fs.writeFile('/d/old2', '2');
    overlay.fs.rm('/d', { recursive: true });
    overlay.fs.mkdir('/d');
    expect(overlay.fs.readdir('/d')).toEqual([]);
    overlay.fs.writeFile('/d/old1', 'again');
    expect(overlay.fs.readdir('/d')).toEqual(['old1']);
    expect(overlay.fs.readFile('/d/old1', 'utf8')).toBe('again');
  });

  it('OV-9 renaming a base file moves it into the upper store and whites out the old name', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/old.txt', 'content');
    const ino = base.fs.stat('/old.txt').ino;
    overlay.fs.rename('/old.txt', '/dir/new.txt'.replace('/dir', ''));
    expect(overlay.fs.readFile('/new.txt', 'utf8')).toBe('content');
    expect(overlay.fs.exists('/old.txt')).toBe(false);
    expect(overlay.fs.stat('/new.txt').ino).toBe(ino);
    expect(base.fs.readdir('/')).toEqual(['old.txt']);
  });

  it('OV-10 renaming a base directory carries its merged contents', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a/x.txt', 'x');
    base.fs.writeFile('/a/sub/y.txt', 'y');
    overlay.fs.writeFile('/a/z.txt', 'z');
    overlay.fs.rm('/a/x.txt');
    overlay.fs.rename('/a', '/b');
    expect(overlay.fs.readdir('/')).toEqual(['b']);
    expect(overlay.fs.readdir('/b')).toEqual(['sub', 'z.txt']);
    expect(overlay.fs.readFile('/b/sub/y.txt', 'utf8')).toBe('y');
    expect(codeOf(() => overlay.fs.rename('/b', '/b/sub/c'))).toBe('EINVAL');
  });

  it('OV-11 the merge base is kept on the first change only; new paths keep "absent"', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/f.txt', 'v1');
    overlay.fs.writeFile('/f.txt', 'agent-1');
    base.fs.writeFile('/f.txt', 'v2');
    overlay.fs.writeFile('/f.txt', 'agent-2');
    overlay.fs.writeFile('/n.txt', 'new');
    const kept = overlay.mergeBase.get('/f.txt');
    expect(kept?.kind).toBe('file');
    expect(kept?.kind === 'file' && kept.content.toString()).toBe('v1');
    expect(overlay.mergeBase.get('/n.txt')).toEqual({ kind: 'absent' });
  });

  it('OV-12 base changes show through wherever the overlay has not written', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'before');
    expect(overlay.fs.readFile('/a.txt', 'utf8')).toBe('before');
    base.fs.writeFile('/a.txt', 'after');
    base.fs.writeFile('/b.txt', 'later');
    expect(overlay.fs.readFile('/a.txt', 'utf8')).toBe('after');
    expect(overlay.fs.readdir('/')).toEqual(['a.txt', 'b.txt']);
  });

  it('OV-13 removing an overlay-only file leaves no whiteout; a whiteout always has its parent in the upper store', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/deep/er/base.txt', 'b');
    overlay.fs.writeFile('/mine.txt', 'm');
    overlay.fs.rm('/mine.txt');
    expect(count(overlay.upper, 'fs_whiteout')).toBe(0);
    overlay.fs.rm('/deep/er/base.txt');
    expect(overlay.upper.fs.stat('/deep/er').isDirectory()).toBe(true);
  });

  it('OV-14 changes() lists added, modified and deleted paths in order; restoring content cancels a change', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/m.txt', 'm');
    base.fs.writeFile('/d.txt', 'd');
    base.fs.writeFile('/same.txt', 'same');
    overlay.fs.writeFile('/m.txt', 'M');
    overlay.fs.rm('/d.txt');
    overlay.fs.writeFile('/a/new.txt', 'new');
    overlay.fs.writeFile('/same.txt', 'changed');
    overlay.fs.writeFile('/same.txt', 'same');
    expect(overlay.changes().map((c) => [c.path, c.status, c.kind])).toEqual([
      ['a', 'added', 'dir'],
      ['a/new.txt', 'added', 'file'],
      ['d.txt', 'deleted', 'file'],
      ['m.txt', 'modified', 'file'],
    ]);
  });

  it('OV-15 the unified diff is git-style; binary files are named, not dumped', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'one\ntwo\nthree\n');
    base.fs.writeFile('/gone.txt', 'bye\n');
    base.fs.writeFile('/img.png', Buffer.from([0x89, 0x50, 0, 1, 2]));
    overlay.fs.writeFile('/a.txt', 'one\n2\nthree\n');
    overlay.fs.rm('/gone.txt');
    overlay.fs.writeFile('/img.png', Buffer.from([0x89, 0x50, 0, 9]));
    overlay.fs.writeFile('/new.sh', 'echo hi', { mode: 0o755 });
    expect(overlay.diff()).toBe(
      [
        'diff --git a/a.txt b/a.txt',
        '--- a/a.txt',
        '+++ b/a.txt',
        '@@ -1,3 +1,3 @@',
        ' one',
        '-two',
        '+2',
        ' three',
        'diff --git a/gone.txt b/gone.txt',
        'deleted file mode 100644',
        '--- a/gone.txt',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-bye',
        'diff --git a/img.png b/img.png',
        'Binary files a/img.png and b/img.png differ',
        'diff --git a/new.sh b/new.sh',
        'new file mode 100755',
        '--- /dev/null',
        '+++ b/new.sh',
        '@@ -0,0 +1 @@',
        '+echo hi',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
    expect(overlay.diff(['a.txt']).split('\n')[0]).toBe('diff --git a/a.txt b/a.txt');
  });

  it('OV-16 opening an overlay costs the same whatever the base holds', () => {
    const dir = makeTempDir();
    const base = AgentFS.open(join(dir, 'stable.db'));
    try {
      base.transaction(() => {
        for (let i = 0; i < 2000; i++) base.fs.writeFile(`/d${i % 20}/f${i}.txt`, `file ${i}`);
      });
      const overlay = Overlay.open(join(dir, 'agent.db'), base);
      expect(count(overlay.upper, 'fs_inode')).toBe(1);
      expect(count(overlay.upper, 'fs_data')).toBe(0);
      expect(overlay.fs.readdir('/').length).toBe(20);
      overlay.close();
    } finally {
      base.close();
    }
  });

  it('OV-17 symlinks in and through the overlay', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/real/file.txt', 'data');
    base.fs.symlink('real', '/link');
    expect(overlay.fs.readFile('/link/file.txt', 'utf8')).toBe('data');
    expect(overlay.fs.readlink('/link')).toBe('real');
    overlay.fs.writeFile('/link/file.txt', 'via link');
    expect(overlay.fs.readFile('/real/file.txt', 'utf8')).toBe('via link');
    expect(base.fs.readFile('/real/file.txt', 'utf8')).toBe('data');
    overlay.fs.symlink('/real/file.txt', '/abs');
    expect(overlay.fs.lstat('/abs').isSymbolicLink()).toBe(true);
    expect(overlay.fs.readFile('/abs', 'utf8')).toBe('via link');
  });

  it('OV-18 chmod on a base entry copies it up and changes only the overlay', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/run.sh', 'echo');
    base.fs.writeFile('/dir/child', 'c');
    overlay.fs.chmod('/run.sh', 0o755);
    overlay.fs.chmod('/dir', 0o700);
    expect(overlay.fs.stat('/run.sh').mode).toBe(0o100755);
    expect(overlay.fs.readFile('/run.sh', 'utf8')).toBe('echo');
    expect(base.fs.stat('/run.sh').mode).toBe(0o100644);
    expect(overlay.fs.stat('/dir').mode).toBe(0o040700);
    expect(overlay.fs.readdir('/dir')).toEqual(['child']);
  });

  it('OV-19 hard links in the overlay share the copied-up inode', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a', 'x');
    overlay.fs.link('/a', '/b');
    overlay.fs.writeFile('/b', 'y');
    expect(overlay.fs.readFile('/a', 'utf8')).toBe('y');
    expect(base.fs.readFile('/a', 'utf8')).toBe('x');
    expect(overlay.fs.stat('/a').nlink).toBe(2);
  });

  it('OV-20 the overlay raises the same errors as a store', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/f', 'x');
    base.fs.mkdir('/d');
    base.fs.writeFile('/full/x', 'x');
    const fs = overlay.fs;
    expect(codeOf(() => fs.readFile('/nope'))).toBe('ENOENT');
    expect(codeOf(() => fs.readFile('/d'))).toBe('EISDIR');
    expect(codeOf(() => fs.writeFile('/f/x', 'y'))).toBe('ENOTDIR');
    expect(codeOf(() => fs.mkdir('/f'))).toBe('EEXIST');
    expect(codeOf(() => fs.rmdir('/full'))).toBe('ENOTEMPTY');
    expect(codeOf(() => fs.unlink('/d'))).toBe('EISDIR');
    expect(codeOf(() => fs.rename('/d', '/full'))).toBe('ENOTEMPTY');
    expect(codeOf(() => fs.readFile('../x'))).toBe('EINVAL');
    expect(codeOf(() => fs.rm('/', { recursive: true }))).toBe('EPERM');
  });

  it('OV-21 reads at an offset fall through to base chunks', () => {
    const { base, overlay } = openTempOverlay();
    const data = Buffer.from(Array.from({ length: 9000 }, (_, i) => i % 256));
    base.fs.writeFile('/blob', data);
    expect(overlay.fs.read('/blob', 4000, 200).equals(data.subarray(4000, 4200))).toBe(true);
  });

  it('OV-22 the overlay keeps its own kv store and tool log', () => {
    const { base, overlay } = openTempOverlay();
    overlay.kv.set('task', { title: 'fix' });
    expect(overlay.kv.get('task')).toEqual({ title: 'fix' });
    expect(base.kv.get('task')).toBeUndefined();
  });

  it('OV-23 edits to the base from another connection show through at once', () => {
    const { base, overlay, dir } = openTempOverlay();
    base.fs.writeFile('/x.txt', 'one');
    expect(overlay.fs.readFile('/x.txt', 'utf8')).toBe('one');
    const watcher = AgentFS.open(join(dir, 'stable.db'));
    try {
      watcher.fs.writeFile('/x.txt', 'two');
      watcher.fs.writeFile('/y.txt', 'new');
      expect(overlay.fs.readFile('/x.txt', 'utf8')).toBe('two');
      expect(overlay.fs.readdir('/')).toEqual(['x.txt', 'y.txt']);
    } finally {
      watcher.close();
    }
  });
  it('OV-24 no two entries report one inode number unless they are hard links', () => {
    const { base, overlay } = openTempOverlay();
    for (let i = 0; i < 5; i++) base.fs.writeFile(`/base-${i}.txt`, String(i));
    for (let i = 0; i < 5; i++) overlay.fs.writeFile(`/new-${i}.txt`, String(i));
    overlay.fs.mkdir('/new-dir');
    overlay.fs.symlink('/base-0.txt', '/new-link');
    overlay.fs.writeFile('/base-1.txt', 'copied up');
    overlay.fs.link('/new-0.txt', '/new-0-again.txt');
    const entries = overlay.fs.readdirPlus('/');
    const byIno = new Map<number, string[]>();
    for (const { name, stats } of entries) byIno.set(stats.ino, [...(byIno.get(stats.ino) ?? []), name]);
    const shared = [...byIno.values()].filter((names) => names.length > 1);
    expect(shared).toEqual([['new-0-again.txt', 'new-0.txt']]);
    expect(overlay.fs.stat('/base-1.txt').ino).toBe(base.fs.stat('/base-1.txt').ino);
    expect(overlay.fs.stat('/').ino).toBe(1);
    expect(overlay.fs.lstat('/new-link').ino).toBeGreaterThan(2 ** 40);
  });
});
