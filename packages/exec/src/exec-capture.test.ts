import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AgentFS, IgnoreRules, importTree, Overlay } from '@cairn/agentfs';
import { runInView } from '@cairn/checks';
import { BlobStore } from '@cairn/workspace';
import { afterEach, describe, expect, it } from 'vitest';
import { writeAgentLayer } from './agent-layer.js';
import { type CapturedChange, captureWrites } from './exec-capture.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A project on disk, imported into a base store, with an agent's overlay on it. */
function project(files: Record<string, string>) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cairn-exec-')));
  cleanups.push(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, 'project');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const stable = AgentFS.open(join(base, 'stable.db'));
  importTree(stable, root);
  const overlay = Overlay.open(join(base, 'agent.db'), stable);
  const blobs = new BlobStore(overlay.upper);
  cleanups.push(() => {
    overlay.close();
    stable.close();
  });
  return { base, root, overlay, blobs };
}

async function capture(p: ReturnType<typeof project>, script: string, run = 1) {
  const state = join(p.base, `state-${run}`);
  mkdirSync(state);
  const view = await runInView({
    root: p.root,
    state,
    ...(p.overlay.changes().length === 0 ? {} : { layer: (dir: string) => writeAgentLayer(p.overlay, dir) }),
    command: ['sh', '-c', script],
    env: {},
    homeEntries: [],
    terminal: false,
    logFile: join(p.base, 'output.log'),
    timeoutMs: 60_000,
  });
  expect(view.status, view.error).toBe('exited');
  const rules = IgnoreRules.forTree(p.root);
  const found = captureWrites(p.overlay.fs, view, {
    blobs: p.blobs,
    maxFileBytes: 1024 * 1024,
    refused: (path) => path.startsWith('.git/'),
    ignored: (path, isDir) => rules.ignores(path, isDir),
  });
  return { view, ...found };
}

/** Makes the captured changes in the overlay, as the capture tools do (without governance, which has tests of its own). */
function apply(p: ReturnType<typeof project>, changes: readonly CapturedChange[]): void {
  const fs = p.overlay.fs;
  for (const change of changes) {
    const at = `/${change.path}`;
    if (change.op === 'put_file') {
      fs.writeFile(at, p.blobs.get(change.ref));
      fs.chmod(at, change.mode);
    } else if (change.op === 'put_link') fs.symlink(change.target, at);
    else if (change.op === 'make_dir') fs.mkdir(at, { recursive: true });
    else if (change.op === 'set_mode') fs.chmod(at, change.mode);
    else if (change.op === 'delete_file') fs.rm(at, { recursive: true });
    else fs.rename(at, `/${change.to}`);
  }
}

describe('the capture of what a program wrote in its view', () => {
  it('finds writes, modes, links, new folders, deletions, renames and a folder removed and made again', async () => {
    const p = project({
      'src/a.txt': 'a\n',
      'src/b.txt': 'b\n',
      'old/keep.txt': 'moved bytes\n',
      'gone.txt': 'gone\n',
      'tool.sh': 'echo\n',
      '.env': 'SECRET=1\n',
      '.gitignore': 'dist/\n',
    });
    const { changes, ignored, view } = await capture(
      p,
      [
        'cat .env > seen.txt 2>&1 || true',
        'printf "\\000\\001binary" > data.bin',
        'chmod +x tool.sh',
        'ln -s src/a.txt link',
        'mkdir empty',
        'rm gone.txt',
        'mv old/keep.txt kept.txt',
        'rm -rf src; mkdir src; echo fresh > src/c.txt',
        'mkdir -p dist; echo built > dist/out.js',
      ].join('; '),
    );
    expect(view.sealed).toBe(true);
    const ops = changes.map((change) => `${change.op} ${change.path}${'to' in change ? ` ${change.to}` : ''}`);
    expect(ops).toEqual(
      expect.arrayContaining([
        'move_file old/keep.txt kept.txt',
        'put_file data.bin',
        'make_dir empty',
        'delete_file gone.txt',
        'put_link link',
        'put_file seen.txt',
        'delete_file src/a.txt',
        'delete_file src/b.txt',
        'put_file src/c.txt',
        'set_mode tool.sh',
      ]),
    );
    // the view hid .env by removing it: that is no deletion, and the program never saw it
    expect(ops.some((op) => op.includes('.env'))).toBe(false);
    expect(ignored).toBe(1);
    apply(p, changes);
    expect(p.overlay.fs.readFile('/seen.txt').toString()).toContain('No such file');
    expect(p.overlay.fs.readFile('/data.bin')).toEqual(Buffer.from('\u0000\u0001binary', 'latin1'));
    expect(p.overlay.fs.lstat('/tool.sh').mode & 0o777).toBe(0o755);
    expect(p.overlay.fs.readlink('/link')).toBe('src/a.txt');
    expect(() => p.overlay.fs.lstat('/src/a.txt')).toThrow();
    // the working tree never changed
    expect(readFileSync(join(p.root, 'src/a.txt'), 'utf8')).toBe('a\n');
  }, 120_000);

  it("a second run sees the agent's proposal so far, and adds only what it changes", async () => {
    const p = project({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const first = await capture(p, 'echo one > new.txt; chmod 700 new.txt; rm b.txt; ln -s a.txt link');
    apply(p, first.changes);
    const second = await capture(p, 'cat new.txt > copy.txt; ls > listing.txt; test -L link && echo link >> listing.txt', 2);
    const ops = second.changes.map((change) => `${change.op} ${change.path}`);
    expect(ops.sort()).toEqual(['put_file copy.txt', 'put_file listing.txt']);
    apply(p, second.changes);
    expect(p.overlay.fs.readFile('/copy.txt').toString()).toBe('one\n');
    const listing = p.overlay.fs.readFile('/listing.txt').toString();
    expect(listing).not.toContain('b.txt');
    expect(listing).toContain('link');
    expect(p.overlay.fs.lstat('/new.txt').mode & 0o777).toBe(0o700);
  }, 120_000);

  it('a copy of the project stands in where namespaces are not used, and finds the same changes', async () => {
    const p = project({ 'a.txt': 'a\n', 'b.txt': 'b\n', '.env': 'S=1\n' });
    const state = join(p.base, 'copy-state');
    mkdirSync(state);
    const view = await runInView({
      root: p.root,
      state,
      command: ['sh', '-c', 'echo changed > a.txt; rm b.txt; echo new > c.txt; test -e .env && echo leaked > leak.txt; true'],
      env: {},
      homeEntries: [],
      terminal: false,
      timeoutMs: 60_000,
      view: 'copy',
    });
    expect(view.view).toBe('copy');
    expect(view.sealed).toBe(false);
    const rules = IgnoreRules.forTree(p.root);
    const { changes } = captureWrites(p.overlay.fs, view, {
      blobs: p.blobs,
      maxFileBytes: 1024,
      refused: () => false,
      ignored: (path, isDir) => rules.ignores(path, isDir),
    });
    expect(changes.map((change) => `${change.op} ${change.path}`).sort()).toEqual([
      'delete_file b.txt',
      'put_file a.txt',
      'put_file c.txt',
    ]);
  }, 120_000);

  it('a file over the largest write is hashed, not kept', async () => {
    const p = project({ 'a.txt': 'a\n' });
    const { changes } = await capture(p, 'head -c 2000000 /dev/zero > big.bin');
    const big = changes.find((change) => change.path === 'big.bin') as Extract<CapturedChange, { op: 'put_file' }>;
    expect(big.size).toBe(2_000_000);
    expect(() => p.blobs.get(big.ref)).toThrow(/no blob/);
  }, 120_000);
});

describe('writes the governance refuses', () => {
  it('under one folder are taken up to ten (each refused where all can see), the rest counted', async () => {
    const p = project({ 'a.txt': 'a\n' });
    const { changes, protectedMore } = await capture(
      p,
      'mkdir -p .git/objects; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do echo $i > .git/objects/o$i; done; echo b > b.txt',
    );
    expect(changes.filter((change) => change.path.startsWith('.git/'))).toHaveLength(10);
    expect(changes.some((change) => change.path === 'b.txt')).toBe(true);
    expect(protectedMore).toEqual([{ folder: '.git', count: 15 }]);
  }, 120_000);
});

describe('terminals and programs in the view', () => {
  it('a program can open a terminal of its own (a fresh /dev/pts)', async () => {
    const p = project({ 'a.txt': 'a\n' });
    const { changes } = await capture(p, "script -qec 'tty > tty.txt' /dev/null");
    const tty = changes.find((change) => change.path === 'tty.txt') as Extract<CapturedChange, { op: 'put_file' }>;
    expect(p.blobs.get(tty.ref).toString()).toMatch(/^\/dev\/pts\/\d+\n$/);
  }, 120_000);
});

describe('a symbolic link in the working tree', () => {
  it('is shown as it is, and a write through it lands in the view only', async () => {
    const p = project({ 'real.txt': 'real\n' });
    symlinkSync('real.txt', join(p.root, 'alias.txt'));
    chmodSync(join(p.root, 'real.txt'), 0o644);
    const { changes } = await capture(p, 'echo through >> alias.txt');
    expect(changes.map((change) => `${change.op} ${change.path}`)).toEqual(['put_file real.txt']);
    expect(readFileSync(join(p.root, 'real.txt'), 'utf8')).toBe('real\n');
  }, 120_000);
});
