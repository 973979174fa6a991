import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject;

afterEach(() => project.cleanup());

const EDIT_BOTH = `await write_file('x.js', 'top 2\\n');\nawait write_file('src/x.js', 'src 2\\n');\nawait write_file('src/y.js', 'y 2\\n');\nawait submit_result('edit', []);\n`;

async function spawnFrom(
  code: string,
  cwd: string,
  extra: string[] = [],
): Promise<{ id: string; state: string; failure?: { message: string } }> {
  const file = join(project.base, `prog-${Math.random().toString(16).slice(2)}.js`);
  writeFileSync(file, code);
  const run = await project.run(['spawn', '--code', file, 'edit', ...extra, '--json'], { cwd });
  expect(run.code === 0 || run.code === 1, run.stderr).toBe(true);
  return resultOf(run).agent as { id: string; state: string; failure?: { message: string } };
}

describe('path arguments are read from the current folder, as git reads them', () => {
  it('`cairn diff` and `cairn accept` in a subfolder name the files there; paths outside the project are refused', async () => {
    project = makeCliProject({ 'x.js': 'top 1\n', 'src/x.js': 'src 1\n', 'src/y.js': 'y 1\n' });
    const src = join(project.root, 'src');
    const { id } = await spawnFrom(EDIT_BOTH, project.root);

    const diff = await project.run(['diff', id, 'x.js', '--no-pager'], { cwd: src });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('+++ b/src/x.js');
    expect(diff.stdout).not.toContain('+++ b/x.js');
    const up = await project.run(['diff', id, '../x.js', '--no-pager'], { cwd: src });
    expect(up.stdout).toContain('+++ b/x.js');
    expect(up.stdout).not.toContain('src/x.js');
    const absolute = await project.run(['diff', id, join(src, 'y.js'), '--no-pager'], { cwd: project.root });
    expect(absolute.stdout).toContain('+++ b/src/y.js');

    const outside = await project.run(['diff', id, '../../elsewhere.js'], { cwd: src });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain(
      `error: ../../elsewhere.js is outside the project ${project.root} (it is ${join(project.base, 'elsewhere.js')})`,
    );
    const outsideAccept = await project.run(['accept', id, '/etc/passwd'], { cwd: src });
    expect(outsideAccept.code).toBe(2);
    expect(outsideAccept.stderr).toContain(`error: /etc/passwd is outside the project ${project.root}`);

    const accepted = await project.run(['accept', id, 'x.js', '--partial'], { cwd: src });
    expect(accepted.code, accepted.stderr + accepted.stdout).toBe(0);
    expect(readFileSync(join(src, 'x.js'), 'utf8')).toBe('src 2\n');
    expect(readFileSync(join(project.root, 'x.js'), 'utf8')).toBe('top 1\n');
    expect(readFileSync(join(src, 'y.js'), 'utf8')).toBe('y 1\n');

    // `.` in a subfolder is that folder
    const { id: second } = await spawnFrom(EDIT_BOTH.replace(/2\\n/g, '3\\n'), project.root);
    const here = await project.run(['accept', second, '.', '--partial', '--force'], { cwd: src });
    expect(here.code, here.stderr + here.stdout).toBe(0);
    expect(readFileSync(join(src, 'y.js'), 'utf8')).toBe('y 3\n');
    expect(readFileSync(join(project.root, 'x.js'), 'utf8')).toBe('top 1\n');
  });

  it('`--scope` in a subfolder is a folder there', async () => {
    project = makeCliProject({ 'x.js': 'top 1\n', 'src/lib/a.js': 'a 1\n' });
    const src = join(project.root, 'src');
    // the project starts at its top (from src/ with no .agentfs/ or .git above, src/ would be the project)
    expect((await project.run(['queue', 'start the project'])).code).toBe(0);
    const agent = await spawnFrom(
      "await write_file('src/lib/a.js', 'a 2\\n');\ntry { await write_file('x.js', 'no\\n'); } catch (e) { await log(String(e)); }\nawait submit_result('scoped', []);\n",
      src,
      ['--scope', 'lib'],
    );
    expect(agent.state, agent.failure?.message).toBe('reviewing');
    const diff = await project.run(['diff', agent.id, '--no-pager']);
    expect(diff.stdout).toContain('+++ b/src/lib/a.js');
    expect(diff.stdout).not.toContain('x.js');
  });
});
