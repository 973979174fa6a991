import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { settleDisk } from './measure.js';

/** Writes a deterministic source-like tree of `count` files (nested directories, 200 B to 6 KB each). */
export function generateTree(root: string, count: number): void {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < count; i++) {
    const dir = join(root, `pkg${i % 10}`, `mod${Math.floor(i / 10) % 25}`, `part${Math.floor(i / 250) % 4}`);
    mkdirSync(dir, { recursive: true });
    const lines = 5 + Math.floor(random() * 150);
    const body = Array.from({ length: lines }, (_, l) => `export const value${l} = ${Math.floor(random() * 1e6)}; // file ${i}`).join('\n');
    writeFileSync(join(dir, `file${i}.ts`), body + '\n');
  }
}

/** Runs git quietly in `cwd` with a fixed identity. */
export function git(cwd: string, ...args: string[]): void {
  execFileSync(
    'git',
    [
      '-c',
      'user.email=bench@cairn.local',
      '-c',
      'user.name=bench',
      '-c',
      'init.defaultBranch=main',
      '-c',
      'gc.auto=0',
      '-c',
      'maintenance.auto=false',
      ...args,
    ],
    { cwd, stdio: 'ignore' },
  );
}

/** Makes `root` a git repository with everything committed (also when it already is one with nothing new). */
export function commitAll(root: string): void {
  git(root, 'init', '-q');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '--allow-empty', '--no-gpg-sign', '-m', 'tree');
}

/** A generated tree of `files` files under `work`, committed (the repository `git worktree add` adds to). */
export function committedTree(work: string, files: number, name = String(files)): string {
  const root = join(work, `tree-${name}`);
  generateTree(root, files);
  commitAll(root);
  settleDisk();
  return root;
}

/** Project-relative paths of every regular file under `root`, sorted. */
export function listFiles(root: string, dir = root, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === '.agentfs') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) listFiles(root, full, out);
    else if (entry.isFile()) out.push(relative(root, full));
  }
  return out.sort();
}

/** Total bytes of the given files. */
export function totalBytes(root: string, files: readonly string[]): number {
  return files.reduce((sum, file) => sum + statSync(join(root, file)).size, 0);
}
