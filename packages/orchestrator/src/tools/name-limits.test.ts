import type { CairnEvent } from '@cairn/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { nameLimitProblem } from '../run/resolve-path.js';
import { makeTempProject, type TempProject } from '../testing/temp-project.js';

let temp: TempProject;
let project: Project;

beforeEach(async () => {
  temp = makeTempProject({ 'a.txt': 'a\n' });
  project = temp.open();
  await project.sync();
});

afterEach(async () => {
  await project.close();
  temp.cleanup();
});

const LONG = 'x'.repeat(300);
const DEEP = Array.from({ length: 20 }, () => 'd'.repeat(250)).join('/');

describe('names the disk cannot hold are refused at the write', () => {
  it('refuses a name over 255 bytes and a path over 4095, with a clear error the program catches; the rest accepts', async () => {
    const code = `
for (const [name, path] of [['long', '${LONG}.txt'], ['deep', '${DEEP}/f.txt'], ['moved', 'a.txt']]) {
  try {
    if (name === 'moved') await move_file(path, '${LONG}');
    else await write_file(path, 'x');
  } catch (e) { log(name + ': ' + e.message); }
}
await write_file('ok.txt', 'fine\\n');
await submit_result('names', []);
`;
    const events: CairnEvent[] = [];
    const agent = await project.spawn('names', { code });
    const stream = (async () => {
      for await (const event of project.events({ agentId: agent.id })) {
        events.push(event);
        if (event.type === 'agent.submitted' || event.type === 'agent.failed') return;
      }
    })();
    const done = await project.wait(agent.id);
    await stream;
    expect(done.state).toBe('reviewing');
    expect(done.changes).toEqual([{ path: 'ok.txt', status: 'added', kind: 'file' }]);
    const logs = events.filter((e) => e.type === 'agent.log').map((e) => (e as { message: string }).message);
    expect(logs).toEqual([
      expect.stringMatching(
        /^long: write_file: cannot create "x{80}…": the name "x{24}…" is 304 bytes long; file systems take at most 255 bytes per name$/,
      ),
      expect.stringMatching(/^deep: write_file: cannot create "d{80}…": the path is 5025 bytes long; file systems take at most 4095$/),
      expect.stringMatching(/^moved: move_file: cannot create ".*": the name "x{24}…" is 300 bytes long/),
    ]);
    const accepted = await project.accept(agent.id);
    expect(accepted.ok).toBe(true);
    expect(temp.read('ok.txt')).toBe('fine\n');
  });

  it('counts bytes, not characters', () => {
    expect(nameLimitProblem('é'.repeat(127))).toBeUndefined();
    expect(nameLimitProblem('é'.repeat(128))).toMatch(/256 bytes long/);
    expect(nameLimitProblem(`${'a'.repeat(255)}/${'b'.repeat(255)}`)).toBeUndefined();
  });
});
