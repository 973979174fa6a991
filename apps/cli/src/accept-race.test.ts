import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject;
beforeEach(() => {
  project = makeCliProject({ 'file.txt': 'before\n' });
});
afterEach(() => project.cleanup());

async function spawnWriter(round: number): Promise<string> {
  project.write(
    `round-${round}.js`,
    `await write_file('file.txt', 'round ${round}\\n');\nawait submit_result('round ${round}', ['file.txt']);\n`,
  );
  const run = await project.run(['spawn', '--code', `round-${round}.js`, `round ${round}`, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (resultOf(run).agent as { id: string }).id;
}

describe('accept and reject of one agent racing across processes', () => {
  it('end in one consistent state each round: accepted with the file written, or rejected with it untouched', async () => {
    const rounds = 12;
    let expected = 'before\n';
    const seen = new Set<string>();
    for (let round = 0; round < rounds; round++) {
      const id = await spawnWriter(round);
      const [accept, reject] = await Promise.all([project.run(['accept', id]), project.run(['reject', id])]);
      const status = resultOf(await project.run(['status', id, '--json'])).agent as { state: string };
      const file = readFileSync(join(project.root, 'file.txt'), 'utf8');
      seen.add(status.state);
      const story = `round ${round}: accept ${accept.code} ${accept.stderr.trim()} | reject ${reject.code} ${reject.stderr.trim()}`;
      if (status.state === 'accepted') {
        expect(file, story).toBe(`round ${round}\n`);
        expect(accept.code, story).toBe(0);
        expect(reject.code, story).toBe(1);
        expect(reject.stderr, story).toContain(`agent ${id} is accepted`);
        expected = file;
        // the accepted agent can be undone: the file goes back to what it was before
        const undo = await project.run(['undo', id]);
        expect(undo.code, `${story}\n${undo.stderr}`).toBe(0);
        expected = readFileSync(join(project.root, 'file.txt'), 'utf8');
        expect((await project.run(['reject', id])).code).toBe(0);
      } else {
        expect(status.state, story).toBe('rejected');
        expect(file, story).toBe(expected);
        expect(reject.code, story).toBe(0);
        if (accept.code !== 0) expect(accept.stderr, story).toMatch(new RegExp(`agent ${id} (is rejected|has no overlay)`));
        else expect.fail(`the accept said it succeeded but the agent is rejected\n${story}`);
      }
      expect(existsSync(join(project.root, 'file.txt'))).toBe(true);
    }
    expect([...seen].every((state) => state === 'accepted' || state === 'rejected')).toBe(true);
  }, 600_000);
});
