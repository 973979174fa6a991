import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject;

afterEach(() => project.cleanup());

/** Spawns a Python program and waits for the agent to settle; returns the agent as JSON and the exit code. */
async function spawnPython(code: string): Promise<{ code: number; agent: { id: string; state: string; failure?: { message: string } } }> {
  const file = join(project.base, `prog-${Math.random().toString(16).slice(2)}.py`);
  writeFileSync(file, code);
  const run = await project.run(['spawn', '--code', file, 'python exit', '--json']);
  return { code: run.code, agent: resultOf(run).agent as { id: string; state: string; failure?: { message: string } } };
}

describe('a Python program that exits', () => {
  it('with a status other than 0 fails the agent with that status, not an internal error', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    const { code, agent } = await spawnPython('write_file("a.txt", "b\\n")\nraise SystemExit(3)\n');
    expect(code).toBe(1);
    expect(agent.state).toBe('failed');
    expect(agent.failure?.message).toBe('the program exited with status 3 (line 2, column 7)');
    expect(agent.failure?.message).not.toMatch(/monty/i);
  });

  it('with status 0 (SystemExit(0), sys.exit(), exit()) ends normally', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    for (const exit of ['raise SystemExit(0)', 'import sys\nsys.exit()', 'exit()']) {
      const { code, agent } = await spawnPython(
        `write_file("a.txt", "b\\n")\nsubmit_result("done", ["a.txt"])\n${exit}\nwrite_file("a.txt", "c\\n")\n`,
      );
      expect(agent.failure?.message, exit).toBeUndefined();
      expect(code, exit).toBe(0);
      expect(agent.state, exit).toBe('reviewing');
      const diff = await project.run(['diff', agent.id, '--no-pager']);
      expect(diff.stdout, exit).toContain('+b');
    }
  });
});
