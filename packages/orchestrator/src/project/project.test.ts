import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CairnEvent } from '@cairn/api';
import { isCairnError } from '@cairn/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OpenedTempProject, openTempProject, SAMPLE_FILES } from '../testing/temp-project.js';
import type { Project } from './project.js';

const RENAME_VAR = `
const text = await read_file('src/greet.js');
await write_file('src/greet.js', text.replace('var text', 'const text'));
await submit_result('use const in greet', ['src/greet.js']);
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

describe('a user program, end to end', () => {
  it('runs governed, is reviewed, accepted into the working tree, undone, and replayed', async () => {
    const spawned = await project.spawn('use const in greet', { code: RENAME_VAR });
    expect(spawned.id).toMatch(/^[0-9a-f]{4,}$/);
    const done = await project.wait(spawned.id);
    expect(done.state).toBe('reviewing');
    expect(done.summary).toBe('use const in greet');
    expect(done.changes).toEqual([{ path: 'src/greet.js', status: 'modified', kind: 'file' }]);
    expect(temp.read('src/greet.js')).toContain('var text');
    const diff = await project.diff(spawned.id);
    expect(diff).toContain('-  var text = "Hello, " + name;');
    expect(diff).toContain('+  const text = "Hello, " + name;');
    expect(readFileSync(join(project.layout.previewsDir, `${spawned.id}.diff`), 'utf8')).toBe(diff);

    const accepted = await project.accept(spawned.id);
    expect(accepted.ok).toBe(true);
    expect(accepted.applied).toEqual([{ path: 'src/greet.js', how: 'fast-forward' }]);
    expect(accepted.agent.state).toBe('accepted');
    expect(temp.read('src/greet.js')).toContain('const text');
    expect(existsSync(join(project.layout.previewsDir, `${spawned.id}.diff`))).toBe(false);

    const undone = await project.undo(spawned.id);
    expect(undone.ok).toBe(true);
    expect(undone.restored).toEqual(['src/greet.js']);
    expect(temp.read('src/greet.js')).toContain('var text');
    expect(undone.agent.state).toBe('reviewing');
    expect(await project.changes(spawned.id)).toEqual([{ path: 'src/greet.js', status: 'modified', kind: 'file' }]);

    const replayed = await project.replay(spawned.id);
    expect(replayed).toMatchObject({ ok: true });
    expect(replayed).not.toHaveProperty('divergence');
    expect(replayed.changesHash).toBe(replayed.recordedChangesHash);
  });

  it('runs Python programs with the same tool names', async () => {
    const code = `text = read_file('src/math.js')\nwrite_file('src/math.js', text.replace('a + b', 'b + a'))\nsubmit_result('swap', ['src/math.js'])\n`;
    const agent = await project.spawn('swap operands', { code, lang: 'py' });
    const done = await project.wait(agent.id);
    expect(done.reason).toBeUndefined();
    expect(done.state).toBe('reviewing');
    expect(await project.proposed(agent.id, 'src/math.js')).toContain('return b + a;');
  });

  it('merges a human edit made meanwhile three ways, and reports overlapping edits as conflicts', async () => {
    const agent = await project.spawn('edit both functions', {
      code: `
        const t = await read_file('src/math.js');
        await write_file('src/math.js', t.replace('return a + b;', 'return a + b; // sum').replace('return a - b;', 'return a - b; // difference'));
      `,
    });
    await project.wait(agent.id);
    temp.write(
      'src/math.js',
      SAMPLE_FILES['src/math.js']!.replace('export function add', '/** Adds. */\nexport function add').replace(
        'return a - b;',
        'return b - a;',
      ),
    );
    const outcome = await project.accept(agent.id);
    expect(outcome.ok).toBe(false);
    expect(outcome.conflicts).toHaveLength(1);
    expect(outcome.conflicts[0]!.reason).toBe('content');
    expect(outcome.conflicts[0]!.hunks[0]!.ours.lines.join('\n')).toContain('return b - a;');
    expect(temp.read('src/math.js')).toContain('return b - a;');
    expect(outcome.agent.state).toBe('reviewing');
    const forced = await project.accept(agent.id, { force: true });
    expect(forced.applied[0]!.how).toBe('forced');
    expect(temp.read('src/math.js')).toContain('// difference');
  });
});

describe('governance', () => {
  it('denies writing protected paths, as an error the program can catch, journaled', async () => {
    const agent = await project.spawn('try secrets', {
      code: `
        let denied = '';
        try { await write_file('.env', 'SECRET=stolen'); } catch (e) { denied = e.message; }
        try { await read_file('.env'); } catch (e) { denied += ' | ' + e.message; }
        await write_file('notes.txt', denied);
      `,
    });
    const done = await project.wait(agent.id);
    expect(done.state).toBe('reviewing');
    const notes = await project.proposed(agent.id, 'notes.txt');
    expect(notes).toMatch(/write_file: .*\.env/);
    expect(notes).toMatch(/read_file: .*\.env/);
    const log = await project.journal(agent.id);
    expect(log.verified).toBe(true);
    expect(log.rows.filter((r) => r.decision === 'denied').length).toBeGreaterThanOrEqual(2);
    expect(temp.read('.env')).toBe('SECRET=do-not-read\n');
  });

  it('refuses paths that leave the project', async () => {
    const agent = await project.spawn('escape', {
      code: `
        const out = [];
        for (const p of ['../outside.txt', '/etc/passwd', 'a/../../b']) {
          try { await read_file(p); out.push('read ' + p); } catch (e) { out.push(e.message); }
        }
        await write_file('escape.txt', out.join('\\n'));
      `,
    });
    await project.wait(agent.id);
    const text = (await project.proposed(agent.id, 'escape.txt'))!;
    expect(text).not.toMatch(/^read /m);
    expect(text.split('\n')).toHaveLength(3);
  });

  it('fails an agent whose byte budget runs out, naming the budget', async () => {
    const agent = await project.spawn('write a lot', { code: `await write_file('big.txt', 'x'.repeat(5000));`, budgets: { bytes: 1000 } });
    const done = await project.wait(agent.id);
    expect(done.state).toBe('failed');
    expect(done.failure?.code).toBe('budget');
    expect(done.reason).toMatch(/bytes/);
  });
});

describe('failures and misuse', () => {
  it('fails an agent whose program throws, with the line', async () => {
    const agent = await project.spawn('broken', { code: `const x = 1;\nnull.boom();\n` });
    const done = await project.wait(agent.id);
    expect(done.state).toBe('failed');
    expect(done.failure?.code).toBe('program-error');
    expect(done.reason).toMatch(/line 2/);
  });

  it('names the tool functions when a program calls one that does not exist (JavaScript and Python)', async () => {
    const js = await project.wait((await project.spawn('a made-up tool', { code: `const found = await glob('src/**');\n` })).id);
    expect([js.failure?.code, js.reason]).toEqual([
      'program-error',
      'the program failed: ReferenceError: glob is not defined (line 1, column 15)',
    ]);
    expect(js.failure?.hint).toMatch(/^glob is not one of the tool functions a program can call: read_file, write_file, .*search_files/);
    const py = await project.wait((await project.spawn('a made-up tool', { code: `found = glob('src/**')\n`, lang: 'py' })).id);
    expect(py.failure?.hint).toMatch(/^glob is not one of the tool functions a program can call: read_file, /);
    const thrown = await project.wait((await project.spawn('its own error', { code: `throw new ReferenceError('no such thing');\n` })).id);
    expect(thrown.failure?.hint).toBeUndefined();
  });

  it('refuses a program that does not parse, naming the place once', async () => {
    const done = await project.wait((await project.spawn('broken syntax', { code: `const x = 1;\nconst y = ;\n` })).id);
    expect(done.failure?.code).toBe('program-rejected');
    expect(done.reason).toMatch(/^the program was refused before it ran: line 2, column \d+: [^()]*$/);
  });

  it('fails an agent that changed nothing', async () => {
    const agent = await project.spawn('nothing', { code: `await read_file('README.md');` });
    const done = await project.wait(agent.id);
    expect(done.failure?.code).toBe('no-changes');
  });

  it('refuses illegal transitions with the state named, and unknown ids', async () => {
    const agent = await project.spawn('x', { code: `await write_file('x.txt', 'x');` });
    await project.wait(agent.id);
    await project.accept(agent.id);
    const error = await project.accept(agent.id).catch((e: unknown) => e);
    expect(isCairnError(error, 'CAIRN_INVALID_STATE')).toBe(true);
    expect((error as Error).message).toMatch(/is accepted/);
    const missing = await project.agent('zzzz').catch((e: unknown) => e);
    expect(isCairnError(missing, 'CAIRN_NOT_FOUND')).toBe(true);
    const badPath = await project.diff(agent.id, ['../x']).catch((e: unknown) => e);
    expect(isCairnError(badPath, 'CAIRN_INVALID_PATH')).toBe(true);
  });

  it('rejects to the ledger, restores, and collects only rejected overlays', async () => {
    const a = await project.spawn('a', { code: `await write_file('a.txt', 'a');` });
    const b = await project.spawn('b', { code: `await write_file('b.txt', 'b');` });
    await project.wait(a.id);
    await project.wait(b.id);
    const rejected = await project.reject(a.id, 'not now');
    expect(rejected.state).toBe('rejected');
    expect(rejected.reason).toBe('not now');
    const restored = await project.restore(a.id);
    expect(restored.state).toBe('reviewing');
    expect(await project.proposed(a.id, 'a.txt')).toBe('a');
    await project.reject(a.id);
    const collected = await project.collect(0);
    expect(collected.collected.map((c) => c.agentId)).toEqual([a.id]);
    expect((await project.agent(b.id)).state).toBe('reviewing');
    const again = await project.restore(a.id).catch((e: unknown) => e);
    expect(isCairnError(again, 'CAIRN_INVALID_STATE')).toBe(true);
  });
});

describe('the queue and events', () => {
  it('runs agents through a bounded pool in FIFO order and reports typed events', async () => {
    await project.close();
    project = temp.open({ poolSize: 2 });
    const events: CairnEvent[] = [];
    const stream = project.events()[Symbol.asyncIterator]();
    const reading = (async () => {
      for (;;) {
        const next = await stream.next();
        if (next.done === true) return;
        events.push(next.value);
      }
    })();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await project.queue(`task ${i}`, { code: `await write_file('out/${i}.txt', '${i}');` })).id);
    const finals = await Promise.all(ids.map((id) => project.wait(id)));
    expect(finals.every((a) => a.state === 'reviewing')).toBe(true);
    const starts = events.filter((e) => e.type === 'agent.started').map((e) => (e as { agentId: string }).agentId);
    expect(starts).toEqual(ids);
    let running = 0;
    let most = 0;
    for (const event of events) {
      if (event.type === 'agent.started') most = Math.max(most, ++running);
      if (event.type === 'agent.submitted' || event.type === 'agent.failed') running--;
    }
    expect(most).toBeLessThanOrEqual(2);
    for (const event of events) expect(new Date(event.time).toISOString()).toBe(event.time);
    const times = events.map((e) => Date.parse(e.time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    await stream.return?.();
    await reading;
  });
});
