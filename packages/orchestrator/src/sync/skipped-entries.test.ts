import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempProject, type TempProject } from '../testing/temp-project.js';

let temp: TempProject;

afterEach(() => temp.cleanup());

describe('an odd file never blocks a spawn', () => {
  it('skips a name that is not UTF-8, lists it, and runs the agent on the rest', async () => {
    temp = makeTempProject({ 'a.txt': 'a\n' });
    writeFileSync(Buffer.concat([Buffer.from(join(temp.root, 'caf')), Buffer.from([0xe9]), Buffer.from('.txt')]), 'latin-1 name\n');
    const project = temp.open();
    try {
      const summary = await project.sync();
      expect(summary.skipped).toEqual([{ path: 'caf\\xe9.txt', reason: 'the name is not UTF-8' }]);
      expect(await project.skipped()).toEqual(summary.skipped);
      const agent = await project.spawn('list', {
        code: `const names = await list_dir('.');\nawait write_file('names.txt', names.join(','));\nawait submit_result('listed', []);\n`,
      });
      const done = await project.wait(agent.id);
      expect(done.state).toBe('reviewing');
      expect((await project.accept(agent.id)).ok).toBe(true);
      expect(temp.read('names.txt')).toBe('a.txt');
    } finally {
      await project.close();
    }
  });
});
