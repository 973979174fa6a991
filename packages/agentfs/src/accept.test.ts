import { describe, expect, it } from 'vitest';
import { undoAccept } from './accept.js';
import { codeOf } from './test-support/error-code.js';
import { openTempOverlay } from './test-support/stores.js';

const lines = (...xs: string[]) => xs.map((x) => x + '\n').join('');

describe('accept: overlay changes into the base', () => {
  it('fast-forwards when the base still holds the merge base', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'v1\n');
    base.fs.writeFile('/old.txt', 'old\n');
    overlay.fs.writeFile('/a.txt', 'v2\n');
    overlay.fs.writeFile('/dir/new.txt', 'new\n', { mode: 0o755 });
    overlay.fs.rm('/old.txt');
    const result = overlay.accept();
    expect(result.conflicts).toEqual([]);
    expect(result.applied.map((a) => [a.path, a.how])).toEqual([
      ['old.txt', 'fast-forward'],
      ['a.txt', 'fast-forward'],
      ['dir', 'fast-forward'],
      ['dir/new.txt', 'fast-forward'],
    ]);
    expect(base.fs.readFile('/a.txt', 'utf8')).toBe('v2\n');
    expect(base.fs.stat('/dir/new.txt').mode).toBe(0o100755);
    expect(base.fs.exists('/old.txt')).toBe(false);
    expect(overlay.changes()).toEqual([]);
  });

  it('merges cleanly when the base moved elsewhere in the file', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/f.ts', lines('a', 'b', 'c', 'd', 'e', 'f'));
    overlay.fs.writeFile('/f.ts', lines('a', 'b', 'c', 'd', 'e', 'F'));
    base.fs.writeFile('/f.ts', lines('A', 'b', 'c', 'd', 'e', 'f'));
    const result = overlay.accept();
    expect(result.applied).toEqual([expect.objectContaining({ path: 'f.ts', how: 'merged' })]);
    expect(base.fs.readFile('/f.ts', 'utf8')).toBe(lines('A', 'b', 'c', 'd', 'e', 'F'));
    expect(overlay.fs.readFile('/f.ts', 'utf8')).toBe(lines('A', 'b', 'c', 'd', 'e', 'F'));
  });

  it('returns overlapping edits as conflicts with hunks and leaves the base as it was', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/f.ts', lines('one', 'two', 'three'));
    overlay.fs.writeFile('/f.ts', lines('one', 'agent', 'three'));
    overlay.fs.writeFile('/other.ts', 'fine\n');
    base.fs.writeFile('/f.ts', lines('one', 'human', 'three'));
    const result = overlay.accept();
    expect(result.conflicts).toEqual([
      {
        path: 'f.ts',
        reason: 'content',
        hunks: [{ ours: { start: 2, lines: ['human\n'] }, base: { start: 2, lines: ['two\n'] }, theirs: { start: 2, lines: ['agent\n'] } }],
      },
    ]);
    expect(result.applied.map((a) => a.path)).toEqual(['other.ts']);
    expect(base.fs.readFile('/f.ts', 'utf8')).toBe(lines('one', 'human', 'three'));
    expect(overlay.changes().map((c) => c.path)).toEqual(['f.ts']);
    const forced = overlay.accept({ force: true });
    expect(forced.applied).toEqual([expect.objectContaining({ path: 'f.ts', how: 'forced' })]);
    expect(base.fs.readFile('/f.ts', 'utf8')).toBe(lines('one', 'agent', 'three'));
  });

  it('delete versus modify, both ways, is a conflict', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/agent-deletes.txt', 'x\n');
    base.fs.writeFile('/human-deletes.txt', 'y\n');
    overlay.fs.rm('/agent-deletes.txt');
    overlay.fs.writeFile('/human-deletes.txt', 'agent edit\n');
    base.fs.writeFile('/agent-deletes.txt', 'human edit\n');
    base.fs.rm('/human-deletes.txt');
    const result = overlay.accept();
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([
      ['agent-deletes.txt', 'modify-delete'],
      ['human-deletes.txt', 'delete-modify'],
    ]);
    expect(base.fs.readFile('/agent-deletes.txt', 'utf8')).toBe('human edit\n');
  });

  it('binary files merge only by fast-forward', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/img.bin', Buffer.from([0, 1, 2]));
    base.fs.writeFile('/ff.bin', Buffer.from([0, 9]));
    overlay.fs.writeFile('/img.bin', Buffer.from([0, 1, 3]));
    overlay.fs.writeFile('/ff.bin', Buffer.from([0, 10]));
    base.fs.writeFile('/img.bin', Buffer.from([0, 4, 2]));
    const result = overlay.accept();
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([['img.bin', 'binary']]);
    expect([...base.fs.readFile('/ff.bin')]).toEqual([0, 10]);
  });

  it('add/add: identical content is already applied, different content conflicts', () => {
    const { base, overlay } = openTempOverlay();
    overlay.fs.writeFile('/same.txt', 'same\n');
    overlay.fs.writeFile('/diff.txt', 'agent\n');
    base.fs.writeFile('/same.txt', 'same\n');
    base.fs.writeFile('/diff.txt', 'human\n');
    const result = overlay.accept();
    expect(result.applied.map((a) => [a.path, a.how])).toEqual([['same.txt', 'already']]);
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([['diff.txt', 'add-add']]);
  });

  it('a directory the agent removed is kept when the human added to it', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/d/a.txt', 'a');
    overlay.fs.rm('/d', { recursive: true });
    base.fs.writeFile('/d/human.txt', 'h');
    const result = overlay.accept();
    expect(result.applied.map((a) => a.path)).toEqual(['d/a.txt']);
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([['d', 'not-empty']]);
    expect(base.fs.readdir('/d')).toEqual(['human.txt']);
  });

  it('accepts a chosen subset; a directory selects what lies below it; unknown paths are EINVAL', () => {
    const { base, overlay } = openTempOverlay();
    overlay.fs.writeFile('/src/a.ts', 'a');
    overlay.fs.writeFile('/src/b.ts', 'b');
    overlay.fs.writeFile('/docs/c.md', 'c');
    const result = overlay.accept({ paths: ['src'] });
    expect(result.applied.map((a) => a.path)).toEqual(['src', 'src/a.ts', 'src/b.ts']);
    expect(base.fs.exists('/docs')).toBe(false);
    expect(overlay.changes().map((c) => c.path)).toEqual(['docs', 'docs/c.md']);
    expect(codeOf(() => overlay.accept({ paths: ['nothing/here'] }))).toBe('EINVAL');
    expect(codeOf(() => overlay.accept({ paths: ['../escape'] }))).toBe('EINVAL');
  });

  it('undo restores the pre-images and refuses paths that changed since, unless forced', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'a1');
    base.fs.writeFile('/b.txt', 'b1');
    base.fs.writeFile('/gone.txt', 'g', { mode: 0o600 });
    overlay.fs.writeFile('/a.txt', 'a2');
    overlay.fs.writeFile('/b.txt', 'b2');
    overlay.fs.writeFile('/new/n.txt', 'n');
    overlay.fs.rm('/gone.txt');
    const { preImages } = overlay.accept();
    base.fs.writeFile('/b.txt', 'human after accept');
    const undo = undoAccept(base.fs, preImages);
    expect(undo.conflicts.map((c) => c.path)).toEqual(['b.txt']);
    expect(base.fs.readFile('/a.txt', 'utf8')).toBe('a1');
    expect(base.fs.readFile('/b.txt', 'utf8')).toBe('human after accept');
    expect(base.fs.readFile('/gone.txt', 'utf8')).toBe('g');
    expect(base.fs.stat('/gone.txt').mode).toBe(0o100600);
    expect(base.fs.exists('/new')).toBe(false);
    undoAccept(
      base.fs,
      preImages.filter((p) => p.path === 'b.txt'),
      { force: true },
    );
    expect(base.fs.readFile('/b.txt', 'utf8')).toBe('b1');
  });

  it('a rename accepts as a deletion and an addition', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/src/old.ts', 'code\n');
    overlay.fs.rename('/src/old.ts', '/src/new.ts');
    expect(overlay.changes().map((c) => [c.path, c.status])).toEqual([
      ['src/new.ts', 'added'],
      ['src/old.ts', 'deleted'],
    ]);
    overlay.accept();
    expect(base.fs.readdir('/src')).toEqual(['new.ts']);
  });

  it('onApply is called inside the transaction for each written path', () => {
    const { base, overlay } = openTempOverlay();
    overlay.fs.writeFile('/x', '1');
    overlay.fs.writeFile('/y', '2');
    const seen: [string, boolean][] = [];
    overlay.accept({ onApply: (path) => seen.push([path, base.db.inTransaction]) });
    expect(seen).toEqual([
      ['x', true],
      ['y', true],
    ]);
  });
});
