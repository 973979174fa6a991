import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTree } from './import-tree.js';
import { openTempOverlay } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';
import { quotePath } from './unified-diff.js';

const ODD_NAMES = [
  'new\nline.txt',
  'tab\there.txt',
  'q"uote.txt',
  'back\\slash.txt',
  'café/ünï.txt',
  'sp ace.txt',
  'bell\x07.txt',
  'del\x7f.txt',
];

function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('diff headers quote names as git does (core.quotePath)', () => {
  it.each([
    ['plain/name.txt', 'a/plain/name.txt'],
    ['sp ace.txt', 'a/sp ace.txt'],
    ['tab\there.txt', '"a/tab\\there.txt"'],
    ['new\nline.txt', '"a/new\\nline.txt"'],
    ['q"uote.txt', '"a/q\\"uote.txt"'],
    ['back\\slash.txt', '"a/back\\\\slash.txt"'],
    ['café.txt', '"a/caf\\303\\251.txt"'],
    ['bell\x07\x01.txt', '"a/bell\\a\\001.txt"'],
  ])('%j → %s', (path, quoted) => {
    expect(quotePath('a/', path)).toBe(quoted);
  });

  it.runIf(hasGit())('gives the same headers as git diff, and git apply takes the whole diff', () => {
    const { base, overlay } = openTempOverlay();
    const root = makeTempDir();
    for (const name of ODD_NAMES.filter((n) => !n.startsWith('new'))) {
      mkdirSync(join(root, name, '..'), { recursive: true });
      writeFileSync(join(root, name), 'before\n');
    }
    importTree(base, root);
    for (const name of ODD_NAMES) overlay.fs.writeFile('/' + name, 'after\n');
    overlay.fs.rm('/sp ace.txt');
    const diff = overlay.diff();
    execFileSync('git', ['init', '-q', root]);
    execFileSync('git', ['-C', root, 'add', '-A']);
    execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'base']);
    writeFileSync(join(root, 'cairn.patch'), diff);
    execFileSync('git', ['-C', root, 'apply', '--verbose', 'cairn.patch'], { stdio: 'pipe' });
    for (const name of ODD_NAMES.filter((n) => n !== 'sp ace.txt')) expect(readFileSync(join(root, name), 'utf8')).toBe('after\n');
    execFileSync('git', ['-C', root, 'add', '-A', '--', ':!cairn.patch']);
    const gitHeaders = execFileSync('git', ['-C', root, '-c', 'core.quotePath=true', 'diff', '--cached', 'HEAD'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.startsWith('diff --git') || line.startsWith('--- ') || line.startsWith('+++ '))
      .sort();
    const ours = diff
      .split('\n')
      .filter((line) => line.startsWith('diff --git') || line.startsWith('--- ') || line.startsWith('+++ '))
      .sort();
    expect(ours).toEqual(gitHeaders);
  });
});
