import { spawn as spawnChild } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { projectLayout } from '@cairn/orchestrator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, type CairnRun, runCairn } from './test-support/run-cairn.js';

const NEW_FILE = "await write_file('new.txt', 'x');\nawait submit_result('a new file', ['new.txt']);\n";
const FIX = `const t = await read_file('src/a.js');\nawait write_file('src/a.js', t.replace('var', 'const'));\nawait submit_result('const', ['src/a.js']);\n`;
const NOBODY = 65534;
const IS_ROOT = process.getuid?.() === 0;
const NOT_A_PROJECT = /^not a Cairn project: (.+)$/;

let base: string;
let home: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'cairn-root-'));
  home = join(base, 'home');
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

/** Makes a folder with files; returns its path. */
function folder(path: string, files: Record<string, string> = {}): string {
  const dir = join(base, path);
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

function cairn(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}, uid?: number): Promise<CairnRun> {
  return runCairn(args, { cwd, home, env, timeoutMs: 60_000, ...(uid === undefined ? {} : { uid }) });
}

/** Every path under `dir`, relative, sorted (empty when it does not exist). */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).map((p) => p.toString()).sort();
}

/** A run that failed with one clear line (and a hint) on stderr: no stack, no internal code; returns the message. */
function oneLineError(run: CairnRun, exit: number): string {
  expect(run.code, run.stdout + run.stderr).toBe(exit);
  expect(run.stderr).not.toMatch(/CAIRN_INTERNAL|\n\s+at |Error:|\bE[A-Z]{3,}\b:/);
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(/^error: /);
  expect(lines.length, run.stderr).toBeLessThanOrEqual(2);
  if (lines.length === 2) expect(lines[1]).toMatch(/^hint: /);
  return lines[0]!.slice('error: '.length);
}

/** A `--json` run that failed: stdout holds only NDJSON, the last line the error; nothing on stderr. */
function jsonError(run: CairnRun, exit: number): { code: string; message: string; hint?: string } {
  expect(run.code, run.stdout + run.stderr).toBe(exit);
  expect(run.stderr).toBe('');
  const lines = run.stdout.trimEnd().split('\n');
  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const line of parsed) expect(typeof line.type).toBe('string');
  const last = parsed.at(-1)!;
  expect(last.type).toBe('error');
  expect(last.code).not.toBe('CAIRN_INTERNAL');
  expect(String(last.message)).not.toMatch(/\n|^E[A-Z]+:/);
  return last as { code: string; message: string; hint?: string };
}

/** A git repository with `src/a.js` and the program `fix.js` beside it. */
function gitRepo(path: string): string {
  const repo = folder(path, { 'src/a.js': 'var a = 1;\n', 'src/deep/b.js': 'var b = 2;\n', 'fix.js': FIX, 'new.js': NEW_FILE });
  mkdirSync(join(repo, '.git'));
  return repo;
}

describe('the project is found as git finds a repository', () => {
  it('a first command in src/ of a git repository uses its top level; read-only ones create nothing there', async () => {
    const repo = gitRepo('repo');
    const src = join(repo, 'src');
    const before = tree(repo);
    const ls = await cairn(['ls'], src);
    expect(oneLineError(ls, 1)).toBe(`not a Cairn project: ${repo}`);
    expect(ls.stderr).toContain('hint: run `cairn spawn` or `cairn up` there to start one');
    expect(tree(repo)).toEqual(before);
    expect(existsSync(home)).toBe(false);

    const spawned = await cairn(['spawn', '--code', '../fix.js', 'use const', '--json'], src);
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = (spawned.json.at(-1)!.agent as { id: string }).id;
    expect(existsSync(join(repo, '.agentfs', 'stable.db'))).toBe(true);
    for (const stray of ['src/.agentfs', 'src/.cairn', 'src/src']) expect(existsSync(join(repo, stray))).toBe(false);

    const deep = await cairn(['accept', id], join(src, 'deep'));
    expect(deep.code, deep.stderr).toBe(0);
    expect(readFileSync(join(repo, 'src/a.js'), 'utf8')).toBe('const a = 1;\n');
    expect(existsSync(join(repo, 'src/src'))).toBe(false);
    expect((await cairn(['ls'], join(src, 'deep'))).stdout).toMatch(new RegExp(`${id}\\s+accepted`));
  });

  it('a git repository made later under a project is not taken over by it, nor is a worktree or submodule (.git as a file)', async () => {
    const outer = folder('outer', {
      'a.js': 'var a;\n',
      'fix.js': "await write_file('a.js', 'x');\nawait submit_result('x', ['a.js']);\n",
    });
    expect((await cairn(['spawn', '--code', 'fix.js', 'outer task'], outer)).code).toBe(0);

    const inner = folder('outer/inner', { 'src/a.js': 'var a = 1;\n' });
    mkdirSync(join(inner, '.git'));
    const worktree = folder('outer/worktree', { 'src/a.js': 'var a = 1;\n' });
    writeFileSync(join(worktree, '.git'), 'gitdir: /elsewhere/.git/worktrees/w\n');
    for (const repo of [inner, worktree]) {
      const before = tree(repo);
      const ls = await cairn(['ls', '--json'], join(repo, 'src'));
      expect(jsonError(ls, 1)).toMatchObject({ code: 'CAIRN_NOT_A_PROJECT', message: `not a Cairn project: ${repo}` });
      expect(tree(repo)).toEqual(before);
      writeFileSync(join(repo, 'fix.js'), FIX);
      const spawned = await cairn(['spawn', '--code', '../fix.js', 'inner task', '--json'], join(repo, 'src'));
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(existsSync(join(repo, '.agentfs'))).toBe(true);
      const listed = await cairn(['ls', '--json'], join(repo, 'src'));
      expect((listed.json.at(-1)!.agents as Array<{ task: string }>).map((a) => a.task)).toEqual(['inner task']);
    }
    const outerList = await cairn(['ls', '--json'], outer);
    expect((outerList.json.at(-1)!.agents as Array<{ task: string }>).map((a) => a.task)).toEqual(['outer task']);
  });

  it('without git: the nearest .agentfs/ upwards, else the current folder', async () => {
    const plain = folder('plain', { 'src/a.js': 'var a = 1;\n', 'fix.js': FIX });
    const nested = folder('plain/src/deeper');
    const ls = await cairn(['ls'], nested);
    expect(oneLineError(ls, 1)).toBe(`not a Cairn project: ${nested}`);
    expect(existsSync(join(nested, '.agentfs'))).toBe(false);
    expect((await cairn(['spawn', '--code', 'fix.js', 'here'], plain)).code).toBe(0);
    const found = await cairn(['ls', '--json'], nested);
    expect(found.code, found.stderr).toBe(0);
    expect(found.json.at(-1)!.agents).toHaveLength(1);
    expect(existsSync(join(nested, '.agentfs'))).toBe(false);
  });

  it('--project is taken as given, and a missing folder or a file is said clearly (exit 2)', async () => {
    const repo = gitRepo('repo');
    const sub = join(repo, 'src');
    writeFileSync(join(base, 'a-file'), 'not a folder');
    const missing = await cairn(['ls', '--project', 'nope'], base);
    expect(oneLineError(missing, 2)).toBe(`--project nope: no such folder (${join(base, 'nope')})`);
    const file = await cairn(['spawn', '--code', join(repo, 'fix.js'), 'x', '--project', 'a-file', '--json'], base);
    expect(jsonError(file, 2)).toMatchObject({
      code: 'CAIRN_USAGE',
      message: `--project a-file: ${join(base, 'a-file')} is a file, not a folder`,
    });
    const under = await cairn(['ls', '--project', 'a-file/x'], base);
    expect(oneLineError(under, 2)).toMatch(/^--project a-file\/x: no such folder/);
    const given = await cairn(['spawn', '--code', join(repo, 'new.js'), 'in src', '--project', sub], base);
    expect(given.code, given.stderr).toBe(0);
    expect(existsSync(join(sub, '.agentfs'))).toBe(true);
    expect(existsSync(join(repo, '.agentfs'))).toBe(false);
  });

  it('every read-only command in a folder that is not a project creates nothing and says so, in JSON too', async () => {
    const empty = folder('empty', { 'a.js': 'var a;\n' });
    const commands = [
      ['ls'],
      ['status', 'ab12'],
      ['diff', 'ab12'],
      ['log', 'ab12'],
      ['events'],
      ['inbox'],
      ['inbox', 'log'],
      ['inbox', 'process'],
      ['gc'],
      ['accept', 'ab12'],
      ['undo', 'ab12'],
      ['reject', 'ab12'],
      ['restore', 'ab12'],
      ['replay', 'ab12'],
      ['review', 'ab12', '--code', 'a.js'],
    ];
    for (const args of commands) {
      const human = await cairn(args, empty);
      expect(oneLineError(human, 1), args.join(' ')).toMatch(NOT_A_PROJECT);
      const json = await cairn([...args, '--json'], empty);
      expect(jsonError(json, 1), args.join(' ')).toMatchObject({ code: 'CAIRN_NOT_A_PROJECT', message: `not a Cairn project: ${empty}` });
    }
    expect(tree(empty)).toEqual(['a.js']);
    expect(existsSync(home)).toBe(false);
    for (const args of [['air', 'check'], ['down']]) {
      const run = await cairn(args, empty);
      expect(run.code, run.stderr).toBe(0);
    }
    expect(tree(empty)).toEqual(['a.js']);
    expect(existsSync(home)).toBe(false);
  });
});

describe('an unusable CAIRN_HOME is refused before any work', () => {
  it('a regular file in the way, or a path under one: spawn (with or without --wait) and queue exit 1 at once, nothing queued', async () => {
    const repo = gitRepo('repo');
    const file = join(base, 'home-file');
    writeFileSync(file, 'in the way');
    for (const [cairnHome, message] of [
      [file, `CAIRN_HOME ${file} is not a writable folder (a file is in the way)`],
      [join(file, 'sub'), `CAIRN_HOME ${join(file, 'sub')} is not a writable folder (a file is in the way: ${file})`],
    ] as const) {
      for (const args of [
        ['spawn', '--code', 'fix.js', 'task'],
        ['spawn', '--code', 'fix.js', 'task', '--wait'],
        ['queue', '--code', 'fix.js', 'task'],
      ]) {
        const run = await cairn(args, repo, { CAIRN_HOME: cairnHome });
        expect(oneLineError(run, 1)).toBe(message);
        expect(run.stderr).toContain(`hint: set CAIRN_HOME to a folder you can write, or remove ${file}`);
        const json = await cairn([...args, '--json'], repo, { CAIRN_HOME: cairnHome });
        expect(jsonError(json, 1)).toMatchObject({ code: 'CAIRN_HOME', message });
      }
      expect(existsSync(join(repo, '.agentfs'))).toBe(false);
    }
    expect(readFileSync(file, 'utf8')).toBe('in the way');
    // an existing project: read-only commands are refused the same way, and nothing was queued
    expect((await cairn(['queue', '--code', 'fix.js', 'ok'], repo)).code).toBe(0);
    const ls = await cairn(['ls', '--json'], repo, { CAIRN_HOME: file });
    expect(jsonError(ls, 1)).toMatchObject({ code: 'CAIRN_HOME' });
    expect((await cairn(['ls', '--json'], repo)).json.at(-1)!.agents).toHaveLength(1);
  });

  it('no CAIRN_HOME and a HOME that does not exist', async () => {
    const repo = gitRepo('repo');
    const run = await cairn(['spawn', '--code', 'fix.js', 'task', '--wait'], repo, { CAIRN_HOME: '', HOME: join(base, 'no-such-home') });
    expect(oneLineError(run, 1)).toBe(
      `the Cairn home ${join(base, 'no-such-home', '.cairn')} (CAIRN_HOME is not set) cannot be made: the home folder ${join(base, 'no-such-home')} does not exist`,
    );
    expect(existsSync(join(base, 'no-such-home'))).toBe(false);
    expect(existsSync(join(repo, '.agentfs'))).toBe(false);
  });

  it.runIf(!IS_ROOT)('a folder this user cannot write (chmod 0555)', async () => {
    const repo = gitRepo('repo');
    const locked = folder('locked');
    chmodSync(locked, 0o555);
    const run = await cairn(['spawn', '--code', 'fix.js', 'task', '--wait'], repo, { CAIRN_HOME: locked });
    expect(oneLineError(run, 1)).toBe(`CAIRN_HOME ${locked} is not a writable folder (permission denied)`);
    expect(existsSync(join(repo, '.agentfs'))).toBe(false);
    chmodSync(locked, 0o755);
  });

  it.runIf(IS_ROOT)('a folder another user cannot write, as that user (root sees 0555 folders as writable)', async () => {
    const repo = gitRepo('repo');
    chmodSync(base, 0o755);
    chownTree(repo, NOBODY);
    const locked = folder('locked');
    chmodSync(locked, 0o755);
    for (const args of [['spawn', '--code', 'fix.js', 'task'], ['spawn', '--code', 'fix.js', 'task', '--wait'], ['ls']]) {
      const run = await cairn(args, repo, { CAIRN_HOME: locked }, NOBODY);
      expect(oneLineError(run, 1)).toMatch(
        args[0] === 'ls' ? NOT_A_PROJECT : new RegExp(`^CAIRN_HOME ${locked} is not a writable folder \\(permission denied\\)$`),
      );
    }
    const under = await cairn(['spawn', '--code', 'fix.js', 'task'], repo, { CAIRN_HOME: join(locked, 'a', 'b') }, NOBODY);
    expect(oneLineError(under, 1)).toBe(`CAIRN_HOME ${join(locked, 'a', 'b')} is not a writable folder (${locked}: permission denied)`);
    expect(existsSync(join(repo, '.agentfs'))).toBe(false);
    expect(tree(locked)).toEqual([]);
  });

  it.runIf(IS_ROOT)('a folder of the project under CAIRN_HOME left by another user (as after sudo) is named', async () => {
    const repo = gitRepo('repo');
    chmodSync(base, 0o755);
    chownTree(repo, NOBODY);
    mkdirSync(home, { recursive: true });
    chownSync(home, NOBODY, NOBODY);
    const previews = projectLayout(repo, home).previewsDir;
    mkdirSync(previews, { recursive: true });
    chownSync(dirname(previews), NOBODY, NOBODY);
    chmodSync(previews, 0o755);
    const run = await cairn(['spawn', '--code', 'fix.js', 'task'], repo, {}, NOBODY);
    expect(oneLineError(run, 1)).toBe(`${previews} (under CAIRN_HOME ${home}) is not a writable folder (permission denied)`);
    expect(existsSync(join(repo, '.agentfs'))).toBe(false);
  });

  it.runIf(IS_ROOT)('a spawn whose preview cannot be written mid-run still ends, saying why, instead of following forever', async () => {
    const repo = gitRepo('repo');
    writeFileSync(join(repo, 'wait.js'), `while (!(await file_exists('go.txt'))) {}\n${FIX}`);
    chmodSync(base, 0o755);
    chownTree(repo, NOBODY);
    mkdirSync(home, { recursive: true });
    chownSync(home, NOBODY, NOBODY);
    const limits = ['--calls', '10000000', '--wall-ms', '100000', '--cpu-ms', '100000'];
    const spawned = cairn(['spawn', '--code', 'wait.js', 'waits', '--json', ...limits], repo, {}, NOBODY);
    let running = false;
    for (let i = 0; i < 600 && !running; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const ls = await cairn(['ls', '--json'], repo, {}, NOBODY);
      running = ls.code === 0 && (ls.json.at(-1)!.agents as Array<{ state: string }>).some((a) => a.state === 'running');
    }
    expect(running).toBe(true);
    const previews = projectLayout(repo, home).previewsDir;
    mkdirSync(previews, { recursive: true });
    chmodSync(previews, 0o555);
    writeFileSync(join(repo, 'go.txt'), 'go');
    // another home, so that this command's own checks pass: it only brings stable.db up to date
    const other = folder('other-home');
    chownSync(other, NOBODY, NOBODY);
    const sync = await cairn(['queue', '--code', 'fix.js', 'syncs'], repo, { CAIRN_HOME: other }, NOBODY);
    expect(sync.code, sync.stderr).toBe(0);
    const run = await spawned;
    expect(run.code, run.stderr).not.toBe(-1);
    const agent = run.json.at(-1)!.agent as { state: string };
    expect(agent.state).toBe('reviewing');
    expect(run.json.some((line) => (line.event as { type?: string } | undefined)?.type === 'error')).toBe(true);
  });
});

describe('odd projects', () => {
  it('.agentfs or .cairn as a file: refused with one line, the file untouched', async () => {
    const repo = gitRepo('repo');
    writeFileSync(join(repo, '.agentfs'), 'mine');
    for (const args of [['ls'], ['spawn', '--code', 'fix.js', 'x'], ['status', 'ab12', '--json']]) {
      const run = await cairn(args, join(repo, 'src'));
      const message = args.includes('--json') ? jsonError(run, 1).message : oneLineError(run, 1);
      expect(message).toBe(`${join(repo, '.agentfs')} is a file, but Cairn keeps its databases in a folder of that name`);
    }
    expect(readFileSync(join(repo, '.agentfs'), 'utf8')).toBe('mine');
    rmSync(join(repo, '.agentfs'));
    writeFileSync(join(repo, '.cairn'), 'mine too');
    const run = await cairn(['spawn', '--code', 'fix.js', 'x'], repo);
    expect(oneLineError(run, 1)).toBe(`${join(repo, '.cairn')} is a file, but Cairn keeps the project's settings in a folder of that name`);
    expect(readFileSync(join(repo, '.cairn'), 'utf8')).toBe('mine too');
    expect(existsSync(join(repo, '.agentfs'))).toBe(false);
  });

  it("Cairn's own files in .agentfs/ damaged, or a folder where a file should be: one line naming the file", async () => {
    const repo = gitRepo('repo');
    const spawned = await cairn(['spawn', '--code', 'fix.js', 'x', '--json'], repo);
    const id = (spawned.json.at(-1)!.agent as { id: string }).id;
    const overlay = join(repo, '.agentfs', `agent-${id}.db`);
    const saved = readFileSync(overlay);
    writeFileSync(overlay, 'not a database');
    expect(jsonError(await cairn(['diff', id, '--json'], repo), 1)).toMatchObject({
      code: 'CAIRN_CORRUPT',
      message: `proposal ${id} is damaged (not a SQLite database)`,
      hint: `\`cairn reject ${id}\` discards it`,
    });
    writeFileSync(overlay, saved);
    rmSync(join(repo, '.agentfs', 'receipt.key'));
    mkdirSync(join(repo, '.agentfs', 'receipt.key'));
    expect(oneLineError(await cairn(['spawn', '--code', 'fix.js', 'y'], repo), 1)).toBe(
      `${join(repo, '.agentfs', 'receipt.key')} is a folder, but Cairn keeps a file there`,
    );
  });

  it.runIf(IS_ROOT)("an agent's overlay owned by another user: refused before an accept could half happen", async () => {
    const repo = gitRepo('repo');
    const spawned = await cairn(['spawn', '--code', 'fix.js', 'x', '--json'], repo);
    const id = (spawned.json.at(-1)!.agent as { id: string }).id;
    chmodSync(base, 0o755);
    chownTree(repo, NOBODY);
    const overlay = join(repo, '.agentfs', `agent-${id}.db`);
    chownSync(overlay, 0, 0);
    const nobodyHome = folder('nobody-home');
    chownSync(nobodyHome, NOBODY, NOBODY);
    const accept = await cairn(['accept', id], repo, { CAIRN_HOME: nobodyHome }, NOBODY);
    expect(oneLineError(accept, 1)).toBe(`cannot write to ${overlay}: permission denied`);
    // commands that do not write that agent's database are not held up by it
    const listed = await cairn(['ls', '--json'], repo, { CAIRN_HOME: nobodyHome }, NOBODY);
    expect(listed.code).toBe(0);
    expect(listed.json.at(-1)!.agents).toEqual([expect.objectContaining({ id, state: 'reviewing' })]);
    expect(readFileSync(join(repo, 'src/a.js'), 'utf8')).toBe('var a = 1;\n');
    expect((await cairn(['status', id, '--json'], repo)).json.at(-1)!.agent).toMatchObject({ state: 'reviewing' });
  });

  it('.cairn/config.json that is not JSON or has wrong types, and a manifest that is not JSON: one line each', async () => {
    const repo = gitRepo('repo');
    const spawned = await cairn(['spawn', '--code', 'fix.js', 'x', '--json'], repo);
    const id = (spawned.json.at(-1)!.agent as { id: string }).id;
    writeFileSync(join(repo, '.cairn', 'config.json'), '{ not json');
    expect(oneLineError(await cairn(['review', id, '--as', 'bob'], repo), 1)).toMatch(/^\.cairn\/config\.json is not JSON: /);
    writeFileSync(join(repo, '.cairn', 'config.json'), JSON.stringify({ inbox: { reviewers: { bob: { code: 5 } } } }));
    expect(jsonError(await cairn(['review', id, '--as', 'bob', '--json'], repo), 1)).toMatchObject({
      code: 'CAIRN_CONFIG',
      message: '.cairn/config.json "inbox.reviewers.bob".code must be the path of a program',
    });
    writeFileSync(join(repo, '.cairn', 'config.json'), '[]');
    expect(oneLineError(await cairn(['review', id, '--as', 'bob'], repo), 1)).toBe('.cairn/config.json must hold a JSON object');
    // a config.json that is not an object is refused by spawn too, before the manifest is read
    expect(oneLineError(await cairn(['spawn', '--code', 'fix.js', 'y'], repo), 1)).toBe('.cairn/config.json must hold a JSON object');
    writeFileSync(join(repo, '.cairn', 'config.json'), '{}');
    writeFileSync(join(repo, '.cairn', 'manifest.air.json'), '[1');
    expect(oneLineError(await cairn(['spawn', '--code', 'fix.js', 'y'], repo), 1)).toMatch(/^\.cairn\/manifest\.air\.json is not valid: /);
    expect(readFileSync(join(repo, 'src/a.js'), 'utf8')).toBe('var a = 1;\n');
  });

  it('a project path with spaces and unicode: spawn, list, diff, accept, and a daemon', async () => {
    const repo = gitRepo('my project ünïcødé 😀');
    const spawned = await cairn(['spawn', '--code', '../fix.js', 'use const', '--json'], join(repo, 'src'));
    expect(spawned.code, spawned.stderr).toBe(0);
    const id = (spawned.json.at(-1)!.agent as { id: string }).id;
    expect((await cairn(['diff', id], repo)).stdout).toContain('+const a = 1;');
    const up = await cairn(['up', '--detach'], join(repo, 'src'));
    expect(up.code, up.stderr).toBe(0);
    try {
      expect((await cairn(['ls'], repo)).stdout).toMatch(new RegExp(`${id}\\s+reviewing`));
      expect((await cairn(['accept', id], repo)).code).toBe(0);
      expect(readFileSync(join(repo, 'src/a.js'), 'utf8')).toBe('const a = 1;\n');
    } finally {
      expect((await cairn(['down'], repo)).stdout).toMatch(/stopped the daemon/);
    }
  });

  it('a current folder that was deleted: one line; with --project and full paths it works, and what it starts runs in the project', async () => {
    const repo = gitRepo('repo');
    const gone = folder('gone');
    const env = { ...process.env, CAIRN_HOME: home, NO_COLOR: '1', OLLAMA_HOST: 'http://127.0.0.1:9' };
    /** Runs cairn from a folder deleted just before. */
    const fromGone = (...args: string[]) => {
      mkdirSync(gone, { recursive: true });
      const script = `cd "${gone}" && rmdir "${gone}" && exec "$0" "$@"`;
      return collect(spawnChild('sh', ['-c', script, process.execPath, CAIRN_BIN, ...args], { env }));
    };
    const ls = await fromGone('ls');
    expect(ls.code).toBe(1);
    expect(ls.stderr.trim().split('\n')).toEqual([
      'error: the current folder no longer exists (it was deleted or moved)',
      'hint: cd to a folder that exists, or give --project DIR and other paths in full',
    ]);
    const relative = await fromGone('spawn', '--code', 'fix.js', 't', '--project', repo, '--json');
    expect(relative.code).toBe(1);
    expect(JSON.parse(relative.stdout.trim())).toMatchObject({ type: 'error', code: 'CAIRN_CWD' });
    const spawned = await fromGone('spawn', '--code', join(repo, 'fix.js'), 't', '--project', repo, '--json');
    expect(spawned.code, spawned.stdout + spawned.stderr).toBe(0);
    expect(spawned.stdout.trim().split('\n').at(-1)).toMatch(/"state":"reviewing"/);
    const up = await fromGone('up', '--detach', '--project', repo);
    expect(up.code, up.stderr).toBe(0);
    const pid = Number(/pid (\d+)/.exec(up.stdout)![1]);
    try {
      // the sandbox children of a process in a deleted folder can die at start; the daemon must not be in one
      if (existsSync('/proc/self/cwd')) expect(readlinkSync(`/proc/${pid}/cwd`)).toBe(repo);
    } finally {
      expect((await cairn(['down'], repo)).code).toBe(0);
    }
  });

  it.runIf(IS_ROOT)('a project folder this user cannot write: one line, nothing created', async () => {
    const repo = gitRepo('repo');
    chmodSync(base, 0o755);
    chmodSync(repo, 0o755);
    const spawn = await cairn(['spawn', '--code', 'fix.js', 'x'], repo, { CAIRN_HOME: join(base, 'nobody-home') }, NOBODY);
    expect(oneLineError(spawn, 1)).toBe(`cannot write to ${join(repo, '.agentfs')}: permission denied`);
    expect(existsSync(join(repo, '.agentfs'))).toBe(false);
    expect(existsSync(join(base, 'nobody-home'))).toBe(false);
    expect((await cairn(['spawn', '--code', 'fix.js', 'x'], repo)).code).toBe(0);
    const ls = await cairn(['ls', '--json'], repo, { CAIRN_HOME: join(base, 'nobody-home') }, NOBODY);
    expect(jsonError(ls, 1)).toMatchObject({
      code: 'CAIRN_PROJECT',
      message: `cannot write to ${join(repo, '.agentfs')}: permission denied`,
    });
  });

  it('an unknown agent id or a prefix of one: one line, exit 1; an empty id is a usage error', async () => {
    const repo = gitRepo('repo');
    const spawned = await cairn(['spawn', '--code', 'fix.js', 'x', '--json'], repo);
    const id = (spawned.json.at(-1)!.agent as { id: string }).id;
    for (const args of [
      ['status', 'zzzz'],
      ['diff', id.slice(0, 2)],
      ['accept', `${id}0`],
      ['log', '../x'],
    ]) {
      const human = await cairn(args, repo);
      expect(oneLineError(human, 1)).toBe(`no agent "${args[1]}" in this project`);
      expect(jsonError(await cairn([...args, '--json'], repo), 1)).toMatchObject({ code: 'CAIRN_NOT_FOUND' });
    }
    expect(oneLineError(await cairn(['status', ''], repo), 2)).toBe('an agent id is required');
  });

  it('an argument holding a NUL byte is a usage error (it cannot cross exec, so main() is called in a child)', async () => {
    const entry = new URL('../dist/cli.js', import.meta.url).href;
    const child = spawnChild(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(['status', 'a\\0b', '--json']);`,
      ],
      { cwd: base, env: { ...process.env, CAIRN_HOME: home, NO_COLOR: '1' } },
    );
    const run = await collect(child);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({
      type: 'error',
      code: 'CAIRN_USAGE',
      message: 'an argument holds a NUL byte: "a\\u0000b"',
    });
  });
});

function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const path of tree(dir)) chownSync(join(dir, path), uid, uid);
}

function collect(child: ReturnType<typeof spawnChild>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
