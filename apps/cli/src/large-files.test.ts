import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject;

afterEach(() => project.cleanup());

/** Spawns an agent running `code` and returns its id once it is reviewing. */
async function spawnReviewing(code: string): Promise<string> {
  const file = join(project.base, 'prog.js');
  writeFileSync(file, code);
  const run = await project.run(['spawn', '--code', file, 'edit', '--json']);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  const agent = resultOf(run).agent as { id: string; state: string; reason?: string };
  expect(agent.state, agent.reason).toBe('reviewing');
  return agent.id;
}

// Each command below runs under run-cairn's two-minute limit, which catches a diff or merge that grows with the
// square of the file (these took minutes, or overflowed the stack); it is not a speed goal.
describe('large files', () => {
  it('a 30,000-line rewrite reaches review, diffs (the diff applies with git apply), accepts and undoes', async () => {
    const before =
      Array.from({ length: 30_000 }, (_, i) => (i % 6 === 5 ? '' : `const value${i} = compute(${i}, 'old');`)).join('\n') + '\n';
    project = makeCliProject({ 'src/big.js': before });
    const id = await spawnReviewing(
      `const text = await read_file('src/big.js');\n` +
        `await write_file('src/big.js', text.split('\\n').map((line) => line.replace("'old'", "'new'").replace('const ', 'let ')).join('\\n'));\n` +
        `await submit_result('rewrite', []);\n`,
    );
    const after = before.replaceAll("'old'", "'new'").replaceAll('const ', 'let ');

    const diff = await project.run(['diff', id]);
    expect(diff.code, diff.stderr).toBe(0);
    const check = join(project.base, 'check');
    mkdirSync(join(check, 'src'), { recursive: true });
    writeFileSync(join(check, 'src/big.js'), before);
    writeFileSync(join(project.base, 'agent.patch'), diff.stdout);
    execFileSync('git', ['apply', '--directory=', join(project.base, 'agent.patch')], { cwd: check, stdio: 'pipe' });
    expect(readFileSync(join(check, 'src/big.js'), 'utf8')).toBe(after);
    expect(diff.stdout.split('\n').filter((line) => line.startsWith('+') && !line.startsWith('+++')).length).toBe(25_000);

    const accepted = await project.run(['accept', id]);
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
    expect(readFileSync(join(project.root, 'src/big.js'), 'utf8')).toBe(after);
    const undone = await project.run(['undo', id]);
    expect(undone.code, undone.stdout + undone.stderr).toBe(0);
    expect(readFileSync(join(project.root, 'src/big.js'), 'utf8')).toBe(before);
  });

  it('read_file refuses a file over 16 MiB by its size, with one clear error the program can catch', async () => {
    project = makeCliProject({ 'small.txt': 'small\n' });
    project.write('logs/huge.txt', `${'a line of a large log file\n'.repeat(700_000)}`);
    const id = await spawnReviewing(
      `let said;\ntry {\n  said = 'read ' + (await read_file('logs/huge.txt')).length;\n} catch (error) {\n  said = error.message;\n}\n` +
        `await write_file('said.txt', said + '\\n' + (await file_exists('logs/huge.txt')) + '\\n');\nawait submit_result('x', []);\n`,
    );
    const diff = await project.run(['diff', id]);
    expect(diff.stdout).toContain(
      '+read_file: logs/huge.txt is 18900000 bytes; read_file returns at most 16777216 (16 MiB), so it is not read',
    );
    expect(diff.stdout).toContain('+true');
  });

  it('merges a 150,000-line file the agent edited near the end while you edited it near the start', async () => {
    const lines = Array.from({ length: 150_000 }, (_, i) => `v${i}`);
    const before = lines.join('\n') + '\n';
    project = makeCliProject({ 'data/table.txt': before });
    const id = await spawnReviewing(
      `const text = await read_file('data/table.txt');\n` +
        `await write_file('data/table.txt', text.replace('\\nv149990\\n', '\\nv149990 agent\\n'));\n` +
        `await submit_result('edit the end', []);\n`,
    );
    writeFileSync(join(project.root, 'data/table.txt'), before.replace('\nv5\n', '\nv5 mine\n'));

    const accepted = await project.run(['accept', id, '--json']);
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
    expect(resultOf(accepted)).toMatchObject({ ok: true, applied: [{ path: 'data/table.txt', how: 'merged' }] });
    expect(readFileSync(join(project.root, 'data/table.txt'), 'utf8')).toBe(
      before.replace('\nv5\n', '\nv5 mine\n').replace('\nv149990\n', '\nv149990 agent\n'),
    );
  });
});
