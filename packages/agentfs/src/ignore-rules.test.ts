import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentFS } from './agentfs.js';
import { readIndexPaths } from './git-index.js';
import { IgnoreRules } from './ignore-rules.js';
import { importPaths } from './import-paths.js';
import { importTree } from './import-tree.js';
import { openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';

function write(root: string, rel: string, content = 'x\n'): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), content);
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Every file under the store's root, project-relative and sorted. */
function storeFiles(store: AgentFS, dir = '/'): string[] {
  const out: string[] = [];
  for (const name of store.fs.readdir(dir)) {
    const path = dir === '/' ? `/${name}` : `${dir}/${name}`;
    if (store.fs.lstat(path).isDirectory()) out.push(...storeFiles(store, path));
    else out.push(path.slice(1));
  }
  return out.sort();
}

/** What git counts as the work tree's files: tracked ones and untracked ones no rule ignores (from `root`'s view). */
function gitFiles(root: string): string[] {
  const list = (...args: string[]) =>
    git(root, 'ls-files', '-z', ...args)
      .split('\0')
      .filter((p) => p !== '');
  return [...new Set([...list(), ...list('--others', '--exclude-standard')])].sort();
}

const savedXdg = process.env.XDG_CONFIG_HOME;
afterEach(() => {
  if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedXdg;
});

describe('ignore rules as git applies them', () => {
  it('keeps tracked files a rule matches (force-added, or in an ignored folder), and nothing else of that folder', () => {
    const root = makeTempDir();
    process.env.XDG_CONFIG_HOME = join(root, 'no-config');
    write(root, '.gitignore', 'build/\n*.log\ndist\n');
    write(root, 'build/keep.txt');
    write(root, 'build/other.txt');
    write(root, 'build/deep/kept.js');
    write(root, 'build/deep/not.js');
    write(root, 'notes.log');
    write(root, 'trace.log');
    write(root, 'dist/bundle.js');
    write(root, 'src/a.ts');
    git(root, 'init', '-q');
    git(root, 'add', '.');
    git(root, 'add', '-f', 'build/keep.txt', 'build/deep/kept.js', 'notes.log');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    expect(storeFiles(store)).toEqual(['.gitignore', 'build/deep/kept.js', 'build/keep.txt', 'notes.log', 'src/a.ts']);
    expect(storeFiles(store)).toEqual(gitFiles(root));
  });

  it('lets a deeper .gitignore re-include what a shallower one ignores, but never below an ignored folder', () => {
    const root = makeTempDir();
    process.env.XDG_CONFIG_HOME = join(root, 'no-config');
    write(root, '.gitignore', '*.log\nout/\n');
    write(root, 'sub/.gitignore', '!important.log\n');
    write(root, 'sub/important.log');
    write(root, 'sub/other.log');
    write(root, 'important.log');
    write(root, 'out/.gitignore', '!*\n');
    write(root, 'out/x.txt');
    git(root, 'init', '-q');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    expect(storeFiles(store)).toEqual(['.gitignore', 'sub/.gitignore', 'sub/important.log']);
    expect(storeFiles(store)).toEqual(gitFiles(root));
  });

  it("honours the repository's info/exclude and the user's core.excludesFile", () => {
    const root = makeTempDir();
    const config = join(root, '..', `${root.split('/').pop()}-config`);
    mkdirSync(join(config, 'git'), { recursive: true });
    process.env.XDG_CONFIG_HOME = config;
    writeFileSync(join(config, 'git/ignore'), '*.swp\n');
    write(root, 'a.txt');
    write(root, 'a.txt.swp');
    write(root, 'local/secret.txt');
    git(root, 'init', '-q');
    writeFileSync(join(root, '.git/info/exclude'), 'local/\n');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    expect(storeFiles(store)).toEqual(['a.txt']);
    const gitView = execFileSync('git', ['ls-files', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, XDG_CONFIG_HOME: config },
    });
    expect(gitView.trim().split('\n')).toEqual(['a.txt']);
    writeFileSync(join(root, '.git/config'), '[core]\n\texcludesFile = ~/nowhere-cairn-test\n');
    const again = openTempStore('stable2.db', makeTempDir());
    importTree(again, root);
    expect(storeFiles(again)).toEqual(['a.txt', 'a.txt.swp']);
  });

  it('applies the .gitignore files above a project that is a folder of a repository, and what it tracks there', () => {
    const top = makeTempDir();
    process.env.XDG_CONFIG_HOME = join(top, 'no-config');
    write(top, '.gitignore', '*.tmp\ngenerated/\n');
    write(top, 'packages/app/src/a.ts');
    write(top, 'packages/app/scratch.tmp');
    write(top, 'packages/app/kept.tmp');
    write(top, 'packages/app/generated/out.js');
    git(top, 'init', '-q');
    git(top, 'add', '.');
    git(top, 'add', '-f', 'packages/app/kept.tmp');
    const root = join(top, 'packages/app');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    expect(storeFiles(store)).toEqual(['kept.tmp', 'src/a.ts']);
    expect(IgnoreRules.ignoresPath(root, 'generated/out.js', false)).toBe(true);
    expect(IgnoreRules.ignoresPath(root, 'kept.tmp', false)).toBe(false);
  });

  it('brings a tracked file an ignore rule matches into the mirror path by path, as an accept imports it', () => {
    const root = makeTempDir();
    process.env.XDG_CONFIG_HOME = join(root, 'no-config');
    write(root, '.gitignore', 'config/\n');
    write(root, 'config/app.json', '{"a":1}\n');
    write(root, 'config/local.json', '{"secret":1}\n');
    git(root, 'init', '-q');
    git(root, 'add', '-f', 'config/app.json');
    const store = openTempStore('stable.db', makeTempDir());
    expect(importPaths(store, root, ['config', 'config/app.json', 'config/local.json'])).toEqual(['added', 'added', 'ignored']);
    expect(storeFiles(store)).toEqual(['config/app.json']);
  });
});

describe('git index reader', () => {
  it.each([2, 3, 4])('reads the paths of a version %i index as git ls-files lists them', (version) => {
    const root = makeTempDir();
    for (const name of ['a.txt', 'dir/b.txt', 'dir/sub/c d.txt', 'dir/sub/café.txt', 'z/y/x/w.txt', 'zz.txt']) write(root, name);
    git(root, 'init', '-q');
    git(root, 'add', '.');
    if (version === 3) {
      write(root, 'intent.txt');
      git(root, 'add', '-N', '--', 'intent.txt');
    }
    git(root, 'update-index', '--index-version', String(version));
    const bytes = execFileSync('cat', [join(root, '.git/index')]);
    expect(bytes.readUInt32BE(4)).toBe(version);
    const listed = git(root, 'ls-files', '-z')
      .split('\0')
      .filter((p) => p !== '');
    expect(readIndexPaths(bytes)).toEqual(listed);
  });

  it('refuses what is not an index', () => {
    expect(readIndexPaths(Buffer.from('not an index at all'))).toBeUndefined();
    expect(readIndexPaths(Buffer.from([0x44, 0x49, 0x52, 0x43, 0, 0, 0, 9, 0, 0, 0, 0]))).toBeUndefined();
  });
});
