import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { type OpenedTempProject, openTempProject } from '../testing/temp-project.js';

const CONFIG = {
  checks: {
    test: { command: ['sh', '-c', 'cat src/value.txt; grep -q fixed src/value.txt'], timeoutMs: 120_000 },
    lint: { command: ['true'], auto: false },
    loud: { command: ['sh', '-c', "seq 1 400 | sed 's/^/test /'; echo 'SUMMARY: 400 passed'"], outputCapBytes: 1024, auto: false },
  },
};

const PROGRAM = `
const before = await run_check('test');
await write_file('src/value.txt', 'fixed\\n');
const after = await run_check('test');
let refused = '';
try { await run_check('deploy'); } catch (e) { refused = String(e.message ?? e); }
const loud = await run_check('loud');
await write_file('report.json', JSON.stringify({ before, after, refused, loud }));
await submit_result('fixed the value', ['src/value.txt']);
`;

let temp: OpenedTempProject;
let project: Project;

beforeEach(async () => {
  temp = await openTempProject({ 'src/value.txt': 'broken\n', '.cairn/config.json': JSON.stringify(CONFIG) });
  project = temp.project;
});
afterEach(async () => {
  await temp[Symbol.asyncDispose]();
});

describe('run_check', () => {
  it("runs a declared check over the agent's changes so far, and a replay takes the receipt instead of running it", async () => {
    const agent = await project.spawn('fix the value', { code: PROGRAM });
    const done = await project.wait(agent.id);
    expect(done.reason).toBeUndefined();
    expect(done.state).toBe('reviewing');
    const files = await project.changes(agent.id);
    expect(files.map((f) => f.path).sort()).toEqual(['report.json', 'src/value.txt']);
    const report = JSON.parse(await readProposed(agent.id, 'report.json')) as Record<
      string,
      { ok: boolean; exit_code: number; output: string }
    >;
    expect(report.before).toEqual({ ok: false, exit_code: 1, output: 'broken\n' });
    expect(report.after).toEqual({ ok: true, exit_code: 0, output: 'fixed\n' });
    expect(String(report.refused)).toBe('run_check: no check named "deploy" (declared: test, lint, loud)');
    // the beginning and the end (where the summary is) kept, cut between lines, with how much was cut
    const printed = `${Array.from({ length: 400 }, (_, i) => `test ${i + 1}\n`).join('')}SUMMARY: 400 passed\n`;
    const loud = report.loud as { ok: boolean; exit_code: number; output: string };
    expect(loud).toMatchObject({ ok: true, exit_code: 0 });
    const shape =
      /^([\s\S]*\n)\[… (\d+) bytes of output cut here …\]\n([\s\S]*)\n\(output capped: (\d+) bytes printed; its beginning and its end kept, 1024 bytes in all\)$/.exec(
        loud.output,
      );
    expect(shape).not.toBeNull();
    const [, head, cut, tail, total] = shape!;
    expect(printed.startsWith(head!)).toBe(true);
    expect(tail!.endsWith('SUMMARY: 400 passed\n')).toBe(true);
    expect(printed.endsWith(tail!)).toBe(true);
    expect(Number(total)).toBe(printed.length);
    expect(head!.length + Number(cut) + tail!.length).toBe(printed.length);
    expect(head!.length + tail!.length).toBeLessThanOrEqual(1024);
    expect(temp.read('src/value.txt')).toBe('broken\n');

    const journal = await project.journal(agent.id);
    expect(journal.verified).toBe(true);
    expect(journal.rows.filter((row) => row.effect === 'check.run').length).toBeGreaterThanOrEqual(2);

    // a replay that ran the check again would now see this text, and the report would differ
    temp.write('src/value.txt', 'changed by the human\n');
    await project.sync();
    const outcome = await project.replay(agent.id);
    expect(outcome).toMatchObject({ ok: true });
    expect(outcome.changesHash).toBe(outcome.recordedChangesHash);
  });
});

async function readProposed(id: string, path: string): Promise<string> {
  return (await project.proposed(id, path)) ?? '';
}
