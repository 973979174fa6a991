import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { AgentFS } from '@cairn/agentfs';
import { projectLayout } from '@cairn/workspace';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Project } from '../project/project.js';
import { makeTempProject, type TempProject } from '../testing/temp-project.js';
import type { ProjectWatcher } from './watcher.js';

const FILES: Record<string, string> = {
  '.gitignore': 'node_modules/\n*.log\n',
  'README.md': '# watched\n',
  'src/a/one.txt': 'one\n',
  'src/b/two.txt': 'two\n',
  'src/b/c/three.txt': 'three\n',
  'node_modules/pkg/index.js': 'ignored\n',
  'node_modules/pkg/lib/deep.js': 'ignored\n',
};

let temp: TempProject;
let project: Project;
let watcher: ProjectWatcher | undefined;

afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await temp[Symbol.asyncDispose]();
});

async function startWatching(): Promise<void> {
  temp = makeTempProject(FILES);
  project = temp.open();
  watcher = project.watch({ debounceMs: 5 });
  await watcher.ready;
}

/** What stable.db holds at `path`, read through a connection of its own; undefined when it holds nothing there. */
function inStable(path: string): string | undefined {
  const stable = AgentFS.open(projectLayout(temp.root, temp.home).stablePath, { readonly: true });
  try {
    return stable.fs.exists('/' + path) ? stable.fs.readFile('/' + path, 'utf8') : undefined;
  } finally {
    stable.close();
  }
}

/** How many inotify watches this process holds (Linux), from the kernel's own listing. */
function inotifyWatches(): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fdinfo')) {
    try {
      count += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('inotify wd:')).length;
    } catch {
      // a descriptor closed meanwhile
    }
  }
  return count;
}

const until = (check: () => void) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

describe('the watcher', () => {
  it.runIf(existsSync('/proc/self/fdinfo'))(
    'imports the tree and watches each folder of the mirror once, never an ignored one',
    async () => {
      temp = makeTempProject(FILES);
      project = temp.open();
      const before = inotifyWatches();
      watcher = project.watch({ debounceMs: 5 });
      const summary = await watcher.ready;
      expect(summary.files).toBe(5);
      // the root, src, src/a, src/b, src/b/c: one watch a folder, none a file, none below node_modules
      expect(inotifyWatches() - before).toBe(5);
      expect(inStable('src/b/c/three.txt')).toBe('three\n');
      expect(inStable('node_modules/pkg/index.js')).toBeUndefined();
    },
  );

  it('imports a folder made after it started with what is in it, and then sees edits inside it', async () => {
    await startWatching();
    temp.write('new/deep/a.txt', 'a\n');
    await until(() => expect(inStable('new/deep/a.txt')).toBe('a\n'));
    temp.write('new/deep/b.txt', 'b\n');
    temp.write('new/deep/a.txt', 'a again\n');
    await until(() => expect([inStable('new/deep/b.txt'), inStable('new/deep/a.txt')]).toEqual(['b\n', 'a again\n']));
  });

  it('takes a renamed folder out under its old name and watches it under the new one', async () => {
    await startWatching();
    renameSync(`${temp.root}/src/b`, `${temp.root}/src/moved`);
    await until(() => expect([inStable('src/b/c/three.txt'), inStable('src/moved/c/three.txt')]).toEqual([undefined, 'three\n']));
    temp.write('src/moved/c/three.txt', 'three, edited\n');
    await until(() => expect(inStable('src/moved/c/three.txt')).toBe('three, edited\n'));
  });

  it('re-imports when a .gitignore changes: a folder it now ignores leaves stable.db, and comes back with its edits', async () => {
    await startWatching();
    temp.write('.gitignore', 'node_modules/\n*.log\nsrc/a/\n');
    await until(() => expect(inStable('src/a/one.txt')).toBeUndefined());
    temp.write('src/a/one.txt', 'one, edited while ignored\n');
    temp.write('.gitignore', 'node_modules/\n*.log\n');
    await until(() => expect(inStable('src/a/one.txt')).toBe('one, edited while ignored\n'));
    temp.write('src/a/one.txt', 'one, watched again\n');
    await until(() => expect(inStable('src/a/one.txt')).toBe('one, watched again\n'));
  });

  it('lists a file whose name is not UTF-8 as skipped while it is there, and forgets it once it is gone', async () => {
    await startWatching();
    const odd = Buffer.concat([Buffer.from(`${temp.root}/src/a/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]);
    writeFileSync(odd, 'latin-1 name\n');
    await until(async () => expect(await project.skipped()).toEqual([{ path: 'src/a/caf\\xe9.txt', reason: 'the name is not UTF-8' }]));
    temp.write('src/a/one.txt', 'one, edited beside it\n');
    await until(() => expect(inStable('src/a/one.txt')).toBe('one, edited beside it\n'));
    rmSync(odd);
    await until(async () => expect(await project.skipped()).toEqual([]));
  });

  it('brings in a file git starts tracking where a rule ignores it, follows its edits, and lets it go when untracked', async () => {
    temp = makeTempProject(FILES);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: temp.root, stdio: 'ignore' });
    git('init', '-q');
    git('add', 'README.md');
    project = temp.open();
    watcher = project.watch({ debounceMs: 5 });
    await watcher.ready;
    expect(inStable('node_modules/pkg/index.js')).toBeUndefined();
    git('add', '-f', 'node_modules/pkg/index.js');
    await until(() => expect(inStable('node_modules/pkg/index.js')).toBe('ignored\n'));
    expect(inStable('node_modules/pkg/lib/deep.js')).toBeUndefined();
    temp.write('node_modules/pkg/index.js', 'patched\n');
    await until(() => expect(inStable('node_modules/pkg/index.js')).toBe('patched\n'));
    git('rm', '-q', '-f', '--cached', 'node_modules/pkg/index.js');
    await until(() => expect(inStable('node_modules/pkg/index.js')).toBeUndefined());
    writeFileSync(`${temp.root}/.git/info/exclude`, 'src/b/\n');
    await until(() => expect(inStable('src/b/two.txt')).toBeUndefined());
  });

  it('applies an editor save through a temp file and a rename, and a file ignored by pattern stays out', async () => {
    await startWatching();
    temp.write('src/a/one.txt.tmp', 'one, saved\n');
    renameSync(`${temp.root}/src/a/one.txt.tmp`, `${temp.root}/src/a/one.txt`);
    temp.write('src/a/debug.log', 'noise\n');
    await until(() => expect(inStable('src/a/one.txt')).toBe('one, saved\n'));
    expect(inStable('src/a/one.txt.tmp')).toBeUndefined();
    expect(inStable('src/a/debug.log')).toBeUndefined();
  });
});
