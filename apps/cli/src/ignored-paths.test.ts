import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject;

// the user's own core.excludesFile stays out of these projects
process.env.XDG_CONFIG_HOME = '/nonexistent-cairn-config';

afterEach(() => project.cleanup());

/** Spawns an agent running `code` and returns its id once it is reviewing. */
async function spawnReviewing(code: string): Promise<string> {
  const file = join(project.base, `prog-${Math.random().toString(16).slice(2)}.js`);
  writeFileSync(file, code);
  const run = await project.run(['spawn', '--code', file, 'edit', '--json']);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  const agent = resultOf(run).agent as { id: string; state: string; reason?: string };
  expect(agent.state, agent.reason).toBe('reviewing');
  return agent.id;
}

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: project.root,
    encoding: 'utf8',
    stdio: 'pipe',
  });
}

/** Every file of the working tree but Cairn's own folders, sorted. */
function treeFiles(): string[] {
  return (readdirSync(project.root, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(project.root.length + 1))
    .filter((path) => !/^\.(agentfs|cairn|git)\//.test(path))
    .sort();
}

describe('what .gitignore ignores', () => {
  it('accept writes the files an agent created in ignored paths, and undo takes exactly those away again', async () => {
    project = makeCliProject({
      '.gitignore': 'node_modules/\n*.log\ndist/\n',
      'a.txt': 'a\n',
      'node_modules/existing/index.js': 'yours\n',
      'dist/old.js': 'built\n',
    });
    const before = treeFiles();
    const id = await spawnReviewing(
      `await write_file('dist/out.js', 'x\\n');\nawait write_file('debug.log', 'log\\n');\n` +
        `await write_file('node_modules/m/index.js', 'm\\n');\nawait write_file('a.txt', 'b\\n');\nawait submit_result('x', []);\n`,
    );
    const accepted = await project.run(['accept', id]);
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(readFileSync(join(project.root, 'dist/out.js'), 'utf8')).toBe('x\n');
    expect(readFileSync(join(project.root, 'node_modules/m/index.js'), 'utf8')).toBe('m\n');

    const undone = await project.run(['undo', id]);
    expect(undone.stdout).not.toContain('you saved');
    expect(undone.code, undone.stdout).toBe(0);
    expect(treeFiles()).toEqual(before);
    expect(readFileSync(join(project.root, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(project.root, 'node_modules/existing/index.js'), 'utf8')).toBe('yours\n');
    expect(readFileSync(join(project.root, 'dist/old.js'), 'utf8')).toBe('built\n');
    const agent = resultOf(await project.run(['status', id, '--json'])).agent as { state: string };
    expect(agent.state).toBe('reviewing');
  });

  it('undo takes an accepted file away even after .gitignore started to ignore it', async () => {
    project = makeCliProject({ '.gitignore': '', 'a.txt': 'a\n' });
    const id = await spawnReviewing(`await write_file('gen/out.js', 'x\\n');\nawait submit_result('x', []);\n`);
    expect((await project.run(['accept', id])).code).toBe(0);
    writeFileSync(join(project.root, '.gitignore'), 'gen/\n');
    const undone = await project.run(['undo', id]);
    expect(undone.code, undone.stdout).toBe(0);
    expect(existsSync(join(project.root, 'gen'))).toBe(false);
  });

  it('an agent deleting a folder that holds an ignored file: accept and undo succeed, the ignored file stays', async () => {
    project = makeCliProject({ '.gitignore': '*.log\n', 'src/s.ts': 's\n', 'src/t.ts': 't\n', 'src/debug.log': 'mine\n' });
    const id = await spawnReviewing(`await delete_file('src');\nawait submit_result('rm src', []);\n`);
    const accepted = await project.run(['accept', id]);
    expect(accepted.stdout).not.toContain('you saved');
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(treeFiles()).toEqual(['.gitignore', 'src/debug.log']);
    const undone = await project.run(['undo', id]);
    expect(undone.stdout).not.toContain('you saved');
    expect(undone.code, undone.stdout).toBe(0);
    expect(treeFiles()).toEqual(['.gitignore', 'src/debug.log', 'src/s.ts', 'src/t.ts']);
  });

  it('an agent writing where you have an ignored file of your own gets a conflict, never your file overwritten', async () => {
    project = makeCliProject({ '.gitignore': 'dist/\n', 'dist/app.js': 'your build\n' });
    const id = await spawnReviewing(`await write_file('dist/app.js', 'agent build\\n');\nawait submit_result('x', []);\n`);
    const accepted = await project.run(['accept', id, '--json']);
    expect(accepted.code).toBe(1);
    expect(resultOf(accepted)).toMatchObject({ conflicts: [{ path: 'dist/app.js', reason: 'add-add' }] });
    expect(readFileSync(join(project.root, 'dist/app.js'), 'utf8')).toBe('your build\n');
  });
});

describe('files git tracks although a rule matches them', () => {
  it('an agent sees a force-added file and a re-included one, and their accept and undo work', async () => {
    project = makeCliProject({
      '.gitignore': 'config/\n*.log\n',
      'config/app.json': '{"port":1}\n',
      'config/local.json': '{"secret":1}\n',
      'sub/.gitignore': '!keep.log\n',
      'sub/keep.log': 'kept\n',
    });
    git('init', '-q');
    git('add', '.');
    git('add', '-f', 'config/app.json');
    const id = await spawnReviewing(
      `const app = await read_file('config/app.json');\nawait write_file('config/app.json', app.replace('1', '2'));\n` +
        `await write_file('sub/keep.log', (await read_file('sub/keep.log')) + 'more\\n');\n` +
        `await write_file('seen.txt', String(await file_exists('config/local.json')) + '\\n');\nawait submit_result('x', []);\n`,
    );
    const diff = await project.run(['diff', id]);
    expect(diff.stdout).toContain('+{"port":2}');
    expect(diff.stdout).toContain('+more');
    expect(diff.stdout).toContain('+false');
    const accepted = await project.run(['accept', id]);
    expect(accepted.stdout).not.toContain('you saved');
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(readFileSync(join(project.root, 'config/app.json'), 'utf8')).toBe('{"port":2}\n');
    expect(readFileSync(join(project.root, 'sub/keep.log'), 'utf8')).toBe('kept\nmore\n');
    const undone = await project.run(['undo', id]);
    expect(undone.code, undone.stdout).toBe(0);
    expect(readFileSync(join(project.root, 'config/app.json'), 'utf8')).toBe('{"port":1}\n');
    expect(readFileSync(join(project.root, 'config/local.json'), 'utf8')).toBe('{"secret":1}\n');
  });

  it('a path .git/info/exclude names is ignored like one in .gitignore', async () => {
    project = makeCliProject({ 'a.txt': 'a\n', 'notes/mine.txt': 'private\n' });
    git('init', '-q');
    writeFileSync(join(project.root, '.git/info/exclude'), 'notes/\n');
    const id = await spawnReviewing(
      `await write_file('seen.txt', String(await file_exists('notes/mine.txt')) + '\\n');\nawait submit_result('x', []);\n`,
    );
    const diff = await project.run(['diff', id]);
    expect(diff.stdout).toContain('+false');
  });
});
