import { AgentFS } from '@cairn/agentfs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { type OpenedTempProject, openTempProject, SAMPLE_FILES } from '../testing/temp-project.js';

const PROGRAM = `
const files = await search_files('src/**/*.js');
const hits = await search_content('function', 'src');
let total = 0;
for (const f of files) total += (await read_file(f)).length;
await write_file('report.txt', files.join(',') + ' ' + hits.length + ' ' + total + ' ' + Math.random() + ' ' + Date.now());
await move_file('src/util/strings.js', 'src/strings.js');
await delete_file('README.md');
log('done');
await submit_result('report', ['report.txt']);
`;

let temp: OpenedTempProject;
let project: Project;

beforeEach(async () => {
  temp = await openTempProject(SAMPLE_FILES);
  project = temp.project;
});

afterEach(async () => {
  await temp[Symbol.asyncDispose]();
});

async function reviewed(code: string): Promise<string> {
  const agent = await project.spawn('replay me', { code });
  const done = await project.wait(agent.id);
  expect(done.reason).toBeUndefined();
  expect(done.state).toBe('reviewing');
  return agent.id;
}

/** Runs SQL on an agent's database from outside, as someone tampering with it would. */
function tamper(id: string, sql: string): void {
  const db = AgentFS.open(project.layout.overlayPath(id));
  try {
    db.db.exec(sql);
  } finally {
    db.close();
  }
}

describe('replay', () => {
  it('reproduces a run from its journal, even after the files it read have changed', async () => {
    const id = await reviewed(PROGRAM);
    temp.write('src/math.js', '// rewritten by the human\n');
    await project.sync();
    const outcome = await project.replay(id);
    expect(outcome).toMatchObject({ ok: true });
    expect(outcome).not.toHaveProperty('divergence');
    expect(outcome.runs).toBe(1);
    expect(outcome.changesHash).toBe(outcome.recordedChangesHash);
  });

  it('reproduces an agent after an accept and an undo', async () => {
    const id = await reviewed(PROGRAM);
    await project.accept(id);
    await project.undo(id);
    expect((await project.replay(id)).ok).toBe(true);
  });

  it('refuses a journal whose entry was edited', async () => {
    const id = await reviewed(PROGRAM);
    tamper(id, `UPDATE cairn_journal SET body = (SELECT body FROM cairn_journal WHERE seq = 1) WHERE seq = 2`);
    const outcome = await project.replay(id);
    expect(outcome).toMatchObject({ ok: false, divergence: { reason: expect.stringMatching(/refused/) } });
  });

  it('refuses a journal cut short', async () => {
    const id = await reviewed(PROGRAM);
    tamper(id, `DELETE FROM cairn_journal WHERE seq = (SELECT MAX(seq) FROM cairn_journal)`);
    const outcome = await project.replay(id);
    expect(outcome).toMatchObject({ ok: false, divergence: { reason: expect.stringMatching(/refused/) } });
  });

  it('names the first difference when a recorded result was altered', async () => {
    const id = await reviewed(`const t = await read_file('src/greet.js'); await write_file('out.txt', t.length > 10 ? 'long' : 'short');`);
    tamper(id, `UPDATE cairn_blobs SET bytes = CAST('x' AS BLOB) WHERE bytes = CAST(${sqlText(SAMPLE_FILES['src/greet.js']!)} AS BLOB)`);
    const outcome = await project.replay(id).catch((e: unknown) => e);
    expect(outcome instanceof Error ? outcome.message : (outcome as { divergence?: { reason: string } }).divergence?.reason).toMatch(
      /altered|differs/,
    );
  });
});

function sqlText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
