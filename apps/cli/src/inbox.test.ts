import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAuditLog } from '@cairn/triage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const FILES: Record<string, string> = {
  'src/greet.js': 'export function greet(name) {\n  var text = "Hello, " + name;\n  return text;\n}\n',
  'src/math.js': 'export function add(a, b) {\n  return a + b;\n}\n',
};
const USE_CONST = `const t = await read_file('src/greet.js');\nawait write_file('src/greet.js', t.replace('var text', 'const text'));\nawait submit_result('const in greet', ['src/greet.js']);\n`;
const ADD_MUL = `const t = await read_file('src/math.js');\nawait write_file('src/math.js', t + 'export const mul = (a, b) => a * b;\\n');\nawait submit_result('mul', ['src/math.js']);\n`;
const REVIEWER = `const p = await get_proposal();\ntry { await write_file('src/greet.js', 'gone'); } catch (e) { log(e.message); }\nawait decide('do:merge', 'reviewed ' + p.changes.length + ' file');\n`;

let project: CliProject;
const inboxDir = () => join(project.root, '.cairn', 'threads', 'inbox');

beforeEach(() => {
  project = makeCliProject(FILES);
  project.write('fix.js', USE_CONST);
  project.write('mul.js', ADD_MUL);
  project.write('review.js', REVIEWER);
});

afterEach(() => project.cleanup());

async function spawnReviewing(code: string, task: string): Promise<string> {
  const run = await project.run(['spawn', '--code', code, task, '--json'], { env: { CAIRN_USER: 'alice' } });
  expect(run.code, run.stderr).toBe(0);
  return (resultOf(run).agent as { id: string }).id;
}

function threadOf(id: string): string {
  const name = readdirSync(inboxDir()).find((n) => n.includes(`-${id}-`));
  if (name === undefined) throw new Error(`no thread for ${id}`);
  return name;
}

function decide(id: string, decision: string, actor = 'alice'): void {
  appendFileSync(
    join(inboxDir(), threadOf(id)),
    `\n---\n\n## Triage\n\ndecision: ${decision}\nactor: ${actor}\ntimestamp: 2026-11-23T09:30Z\n`,
  );
}

function log(): { decision: string; executed: string }[] {
  const dir = join(project.root, '.cairn', 'logs', 'inbox');
  return readdirSync(dir).flatMap((file) => {
    const parsed = parseAuditLog(readFileSync(join(dir, file), 'utf8'));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
    return parsed.value.entries;
  });
}

describe('cairn inbox, without a daemon', () => {
  it("lists threads, carries out a person's decision, a reviewer's, and shows the log", async () => {
    const a = await spawnReviewing('fix.js', 'use const');
    const b = await spawnReviewing('mul.js', 'add mul');
    decide(a, 'do:merge');
    const listed = await project.run(['inbox', '--json']);
    expect(listed.code).toBe(0);
    const threads = resultOf(listed).threads as { agentId: string; status: string }[];
    expect(threads.map((t) => [t.agentId, t.status]).sort()).toEqual(
      [
        [a, 'decided'],
        [b, 'pending'],
      ].sort(),
    );

    const processed = await project.run(['inbox', 'process']);
    expect(processed.code, processed.stderr).toBe(0);
    expect(processed.stdout).toContain(`${a} do:merge by alice: ✓ merged`);
    expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toContain('const text');

    const reviewed = await project.run(['review', b, '--code', 'review.js', '--json']);
    // the merge was refused: not carried out, so not a success
    expect(reviewed.code, reviewed.stderr).toBe(1);
    const result = resultOf(reviewed);
    expect(result.agent).toMatchObject({ state: 'decided', role: 'reviewer', decision: { decision: 'do:merge' } });
    expect(result.thread).toMatchObject({ status: 'refused', rule: 'merge-requires-approval' });
    const reviewer = (result.agent as { id: string }).id;
    const journal = await project.run(['log', reviewer, '--json']);
    const rows = (resultOf(journal).journal as { rows: { effect?: string; decision?: string }[] }).rows;
    expect(rows.some((r) => r.effect === 'fs.write' && r.decision === 'denied')).toBe(true);

    const shown = await project.run(['inbox', 'log']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/do:merge\s+✓ merged/);
    expect(shown.stdout).toMatch(/do:merge\s+✗ refused: merge-requires-approval/);
    expect(log().map((e) => e.executed)).toEqual(['—', '—', '✓ merged', '✗ refused: merge-requires-approval']);
  });

  it('shows a malformed decision with its line and column and exits 1, executing nothing', async () => {
    const a = await spawnReviewing('fix.js', 'use const');
    decide(a, 'do:Merge');
    const run = await project.run(['inbox', 'process']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`${threadOf(a)}:\\d+:\\d+ `));
    const listed = await project.run(['inbox']);
    expect(listed.stdout).toMatch(/^invalid/m);
    expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toContain('var text');
  });

  it("replaces a refused reviewer's decision with an approver's, which merges; exits 1 only for the refused one", async () => {
    project.write('.cairn/reviewers/approve.js', REVIEWER);
    project.write(
      '.cairn/config.json',
      JSON.stringify({ inbox: { reviewers: { 'lint-bot': { code: '.cairn/reviewers/approve.js', approver: true } } } }),
    );
    const a = await spawnReviewing('fix.js', 'use const');
    const refused = await project.run(['review', a, '--code', 'review.js']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('✗ refused: merge-requires-approval');

    const approved = await project.run(['review', a, '--as', 'lint-bot']);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    expect(approved.stdout).toContain('✓ merged');
    expect(approved.stdout).not.toContain('not written');
    expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toContain('const text');
    expect(log().map((e) => e.executed)).toEqual(['—', '✗ refused: merge-requires-approval', '✓ merged']);

    const late = await project.run(['review', a, '--code', 'review.js', '--json']);
    expect(late.code).toBe(1);
  });

  it('killed in the middle of a pass, a rerun carries out each decision once', async () => {
    const a = await spawnReviewing('fix.js', 'use const');
    const b = await spawnReviewing('mul.js', 'add mul');
    // the handler of a's custom decision kills the processing CLI while it runs
    project.write(
      '.cairn/config.json',
      JSON.stringify({ inbox: { customHandler: { command: ['sh', '-c', 'echo ran >> handler.log; kill -9 $PPID; sleep 5'] } } }),
    );
    const [first, second] = [threadOf(a), threadOf(b)].sort();
    const firstId = first === threadOf(a) ? a : b;
    const secondId = firstId === a ? b : a;
    decide(firstId, 'do:custom:announce it');
    decide(secondId, 'do:merge');
    const killed = await project.run(['inbox', 'process']);
    expect(killed.code).not.toBe(0);
    expect(existsSync(join(inboxDir(), second!))).toBe(true);
    const rerun = await project.run(['inbox', 'process', '--json']);
    const results = resultOf(rerun).results as { agentId: string; outcome: string; executed: string }[];
    expect(results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ agentId: firstId, outcome: 'failed', executed: expect.stringContaining('not run again') }),
        expect.objectContaining({ agentId: secondId, outcome: 'merged' }),
      ]),
    );
    expect(readFileSync(join(project.root, 'handler.log'), 'utf8')).toBe('ran\n');
    const again = await project.run(['inbox', 'process', '--json']);
    expect(resultOf(again).results).toEqual([]);
    expect(log().filter((e) => e.decision !== 'received')).toHaveLength(2);
  });
});

describe('cairn inbox, with a daemon', () => {
  it('processes a decision when the thread file is saved', async () => {
    const up = await project.run(['up', '--detach'], { env: { CAIRN_USER: 'alice' } });
    expect(up.code, up.stderr).toBe(0);
    try {
      const spawned = await project.run(['spawn', '--code', 'fix.js', 'use const', '--wait', '--json']);
      const id = (resultOf(spawned).agent as { id: string }).id;
      decide(id, 'do:merge');
      const deadline = Date.now() + 60_000;
      let state = '';
      while (Date.now() < deadline) {
        const status = await project.run(['status', id, '--json']);
        state = (resultOf(status).agent as { state: string }).state;
        if (state === 'accepted') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(state).toBe('accepted');
      expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toContain('const text');
      const listed = await project.run(['inbox', '--all', '--json']);
      expect(resultOf(listed).threads).toEqual([expect.objectContaining({ status: 'done', decision: 'do:merge' })]);
    } finally {
      await project.run(['down']);
    }
  });
});
