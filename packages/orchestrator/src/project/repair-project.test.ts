import { existsSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCairnError } from '@cairn/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempProject, type TempProject } from '../testing/temp-project.js';
import type { Project } from './project.js';
import { RECOVERED_REASON, repairProject } from './repair-project.js';

let temp: TempProject;
let project: Project;

beforeEach(async () => {
  temp = makeTempProject({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  project = temp.open();
  await project.sync();
});

afterEach(async () => {
  await project.close();
  temp.cleanup();
});

async function settle(code: string, task: string): Promise<string> {
  const agent = await project.spawn(task, { code });
  await project.wait(agent.id);
  return agent.id;
}

const SUBMITS = (file: string) => `await write_file('${file}', 'agent\\n');\nawait submit_result('changed ${file}', []);\n`;

describe('cairn repair', () => {
  it('keeps a damaged bin.db aside and rebuilds every agent from its database: accepted, reviewing, rejected, failed', async () => {
    const accepted = await settle(SUBMITS('a.txt'), 'accept me');
    const reviewing = await settle(SUBMITS('b.txt'), 'review me');
    const rejected = await settle(SUBMITS('c.txt'), 'reject me');
    const silent = await settle(`await write_file('d.txt', 'no submit\\n');\nthrow new Error('crashed');\n`, 'crash');
    await project.accept(accepted);
    await project.reject(rejected, 'not now');
    await project.close();
    const binPath = project.layout.binPath;
    truncateSync(binPath, 3000);

    const broken = (() => {
      try {
        temp.open();
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(isCairnError(broken, 'CAIRN_CORRUPT')).toBe(true);
    expect((broken as { hint?: string }).hint).toMatch(/`cairn repair`/);

    const outcome = repairProject(temp.root, { clock: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    expect(outcome.binDb).toBe('damaged');
    expect(outcome.movedAside).toBe(join(project.layout.agentfsDir, 'bin.damaged-20260102-030405.db'));
    expect(existsSync(outcome.movedAside!)).toBe(true);
    const states = Object.fromEntries(outcome.recovered.map((r) => [r.id, [r.state, r.task]]));
    expect(states).toEqual({
      [accepted]: ['accepted', 'accept me'],
      [reviewing]: ['reviewing', 'review me'],
      [rejected]: ['rejected', 'reject me'],
      [silent]: ['failed', 'crash'],
    });
    expect(outcome.lost.join(' ')).toMatch(/event history/);

    project = temp.open();
    expect((await project.agent(reviewing)).summary).toBe('changed b.txt');
    expect(await project.diff(reviewing)).toContain('+agent');
    expect((await project.agent(silent)).reason).toBe(RECOVERED_REASON);
    expect((await project.restore(rejected)).state).toBe('reviewing');
    const undone = await project.undo(accepted);
    expect(undone.ok).toBe(true);
    expect(temp.read('a.txt')).toBe('a\n');
    const again = await project.spawn('after repair', { code: SUBMITS('e.txt') });
    expect((await project.wait(again.id)).state).toBe('reviewing');
    expect((await project.replay(reviewing)).ok).toBe(true);
  });

  it('adopts agent databases a lost bin.db left without records, and leaves a sound one as it is', async () => {
    const id = await settle(SUBMITS('a.txt'), 'orphaned');
    await project.close();
    for (const name of readdirSync(project.layout.agentfsDir))
      if (name.startsWith('bin.db')) writeFileSync(join(project.layout.agentfsDir, name), '');
    project = temp.open();
    expect(await project.agents()).toEqual([]);
    await project.close();
    const outcome = repairProject(temp.root);
    expect(outcome.binDb).toBe('sound');
    expect(outcome.recovered).toEqual([{ id, state: 'reviewing', task: 'orphaned', from: 'agent database' }]);
    expect(repairProject(temp.root).recovered).toEqual([]);
    project = temp.open();
    expect((await project.agent(id)).state).toBe('reviewing');
  });

  it('lists a garbage agent database as failed, so reject can discard it, and says it could not recover it', async () => {
    await project.close();
    writeFileSync(project.layout.overlayPath('beef'), Buffer.alloc(50_000, 0x42));
    const outcome = repairProject(temp.root);
    expect(outcome.recovered.map((r) => [r.id, r.state])).toEqual([['beef', 'failed']]);
    expect(outcome.unrecovered).toEqual([
      {
        path: project.layout.overlayPath('beef'),
        why: 'its database is damaged; it is listed as failed, and `cairn reject beef` discards it',
      },
    ]);
    project = temp.open();
    expect((await project.reject('beef')).state).toBe('rejected');
  });
});
