import { describe, expect, it } from 'vitest';
import { UNFORCEABLE, undoAccept } from './accept.js';
import { stateOf } from './entry-state.js';
import { openTempOverlay } from './test-support/stores.js';

describe('force never replaces what no pre-image keeps', () => {
  it('a file the human replaced with a folder stays a folder, forced or not, atomic or partial', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/src/b.txt', 'one\n');
    base.fs.writeFile('/src/a.txt', 'a\n');
    overlay.fs.writeFile('/src/b.txt', 'two\n');
    overlay.fs.writeFile('/src/a.txt', 'A\n');
    base.fs.rm('/src/b.txt');
    base.fs.writeFile('/src/b.txt/notes.md', 'mine\n');
    const atomic = overlay.accept({ force: true, atomic: true });
    expect(atomic.applied).toEqual([]);
    expect(atomic.conflicts).toEqual([{ path: 'src/b.txt', reason: 'type', hunks: [] }]);
    expect(base.fs.readFile('/src/a.txt', 'utf8')).toBe('a\n');
    const partial = overlay.accept({ force: true });
    expect(partial.applied.map((a) => a.path)).toEqual(['src/a.txt']);
    expect(partial.conflicts.map((c) => [c.path, c.reason])).toEqual([['src/b.txt', 'type']]);
    expect(base.fs.readFile('/src/b.txt/notes.md', 'utf8')).toBe('mine\n');
    expect(overlay.changes().map((c) => c.path)).toEqual(['src/b.txt']);
  });

  it.each([
    ['a symlink in place of the file', (fs: ReturnType<typeof openTempOverlay>['base']['fs']) => fs.symlink('elsewhere', '/f')],
    ['a folder in place of the file', (fs: ReturnType<typeof openTempOverlay>['base']['fs']) => fs.writeFile('/f/inside', 'x')],
  ])('the agent editing a file the human turned into %s is a type conflict force does not take', (_what, turn) => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/f', 'v1\n');
    overlay.fs.writeFile('/f', 'v2\n');
    base.fs.rm('/f');
    turn(base.fs);
    const before = stateOf(base.fs, '/f');
    const result = overlay.accept({ force: true });
    expect(result.conflicts.map((c) => c.reason)).toEqual(['type']);
    expect(stateOf(base.fs, '/f')).toEqual(before);
  });

  it('the agent deleting a file the human replaced with a folder deletes nothing', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/old.txt', 'old\n');
    overlay.fs.rm('/old.txt');
    base.fs.rm('/old.txt');
    base.fs.writeFile('/old.txt/kept.md', 'kept\n');
    const result = overlay.accept({ force: true });
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([['old.txt', 'type']]);
    expect(base.fs.readFile('/old.txt/kept.md', 'utf8')).toBe('kept\n');
  });

  it('a folder the agent turns into a file is not replaced once the human added to it', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/d/x', 'x\n');
    overlay.fs.rm('/d', { recursive: true });
    overlay.fs.writeFile('/d', 'now a file\n');
    base.fs.writeFile('/d/user.txt', 'mine\n');
    const result = overlay.accept({ force: true });
    expect(result.conflicts.map((c) => [c.path, c.reason])).toEqual([['d', 'not-empty']]);
    expect(base.fs.readFile('/d/user.txt', 'utf8')).toBe('mine\n');
    expect(UNFORCEABLE.has('not-empty') && UNFORCEABLE.has('type')).toBe(true);
  });

  it('a content conflict is still forced, and undo gives back the human bytes and mode exactly', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/run.sh', '#!/bin/sh\necho base\n', { mode: 0o755 });
    overlay.fs.writeFile('/run.sh', '#!/bin/sh\necho agent\n');
    base.fs.writeFile('/run.sh', '#!/bin/sh\necho human\n', { mode: 0o750 });
    const human = stateOf(base.fs, '/run.sh');
    const forced = overlay.accept({ force: true });
    expect(forced.applied).toEqual([expect.objectContaining({ path: 'run.sh', how: 'forced' })]);
    expect(base.fs.readFile('/run.sh', 'utf8')).toBe('#!/bin/sh\necho agent\n');
    const undone = undoAccept(base.fs, forced.preImages);
    expect(undone.restored).toEqual(['run.sh']);
    expect(stateOf(base.fs, '/run.sh')).toEqual(human);
  });

  it('two folders, one from each side, merge keeping the human mode', () => {
    const { base, overlay } = openTempOverlay();
    overlay.fs.writeFile('/lib/agent.js', 'a\n');
    base.fs.mkdir('/lib', { mode: 0o700 });
    base.fs.writeFile('/lib/human.js', 'h\n');
    const result = overlay.accept();
    expect(result.conflicts).toEqual([]);
    expect(base.fs.stat('/lib').mode & 0o777).toBe(0o700);
    expect(base.fs.readdir('/lib')).toEqual(['agent.js', 'human.js']);
  });
});

describe('undo never loses what the human did after the accept', () => {
  it('a path that changed kind since is left alone even forced; a later edit is overwritten only forced, and returned', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/kind.txt', 'k1\n');
    base.fs.writeFile('/edit.txt', 'e1\n');
    overlay.fs.writeFile('/kind.txt', 'k2\n');
    overlay.fs.writeFile('/edit.txt', 'e2\n');
    const accepted = overlay.accept();
    base.fs.rm('/kind.txt');
    base.fs.writeFile('/kind.txt/inside.md', 'mine\n');
    base.fs.writeFile('/edit.txt', 'e3 by the human\n');
    const plain = undoAccept(base.fs, accepted.preImages);
    expect(plain.conflicts.map((c) => [c.path, c.reason])).toEqual([
      ['kind.txt', 'kind'],
      ['edit.txt', 'changed'],
    ]);
    const forced = undoAccept(base.fs, accepted.preImages, { force: true });
    expect(forced.conflicts.map((c) => [c.path, c.reason])).toEqual([['kind.txt', 'kind']]);
    expect(forced.restored).toEqual(['edit.txt']);
    expect(forced.forced.map((f) => [f.path, f.found.kind === 'file' && f.found.content.toString()])).toEqual([
      ['edit.txt', 'e3 by the human\n'],
    ]);
    expect(base.fs.readFile('/kind.txt/inside.md', 'utf8')).toBe('mine\n');
    expect(base.fs.readFile('/edit.txt', 'utf8')).toBe('e1\n');
  });

  it('a folder the accept created keeps what the human put in it', () => {
    const { base, overlay } = openTempOverlay();
    overlay.fs.writeFile('/n/a.txt', 'agent\n');
    const accepted = overlay.accept();
    base.fs.writeFile('/n/user.txt', 'mine\n');
    const undone = undoAccept(base.fs, accepted.preImages, { force: true });
    expect(undone.restored).toEqual(['n/a.txt']);
    expect(undone.conflicts.map((c) => [c.path, c.reason])).toEqual([['n', 'not-empty']]);
    expect(base.fs.readdir('/n')).toEqual(['user.txt']);
  });
});

describe('merging keeps what the human changed', () => {
  it('a mode the human changed survives an agent edit of the content', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/a.txt', 'a\n', { mode: 0o644 });
    overlay.fs.writeFile('/a.txt', 'A\n');
    base.fs.chmod('/a.txt', 0o444);
    const result = overlay.accept();
    expect(result.applied).toEqual([expect.objectContaining({ path: 'a.txt', how: 'merged' })]);
    expect(base.fs.readFile('/a.txt', 'utf8')).toBe('A\n');
    expect(base.fs.stat('/a.txt').mode & 0o777).toBe(0o444);
  });
});

describe('undo restores exactly what the accept replaced', () => {
  it('a symlink the agent turned into a file, a folder mode, and a file the agent deleted', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/target.txt', 't\n');
    base.fs.symlink('target.txt', '/link');
    base.fs.mkdir('/private', { mode: 0o700 });
    base.fs.writeFile('/gone.txt', 'bytes\u0000kept\n', { mode: 0o600 });
    const before = ['/link', '/private', '/gone.txt'].map((p) => stateOf(base.fs, p));
    overlay.fs.rm('/link');
    overlay.fs.writeFile('/link', 'now a file\n');
    overlay.fs.chmod('/private', 0o755);
    overlay.fs.rm('/gone.txt');
    const accepted = overlay.accept();
    expect(accepted.conflicts).toEqual([]);
    expect(stateOf(base.fs, '/link').kind).toBe('file');
    const undone = undoAccept(base.fs, accepted.preImages);
    expect(undone.conflicts).toEqual([]);
    expect(['/link', '/private', '/gone.txt'].map((p) => stateOf(base.fs, p))).toEqual(before);
  });
});

describe('force over a file the human deleted', () => {
  it('puts the agent version back, and undo takes it away again: the deletion is kept exactly', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/notes.txt', 'v1\n');
    overlay.fs.writeFile('/notes.txt', 'v2\n');
    base.fs.rm('/notes.txt');
    expect(overlay.accept().conflicts.map((c) => c.reason)).toEqual(['delete-modify']);
    const forced = overlay.accept({ force: true });
    expect(base.fs.readFile('/notes.txt', 'utf8')).toBe('v2\n');
    undoAccept(base.fs, forced.preImages);
    expect(stateOf(base.fs, '/notes.txt')).toEqual({ kind: 'absent' });
  });
});
