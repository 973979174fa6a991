import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResultInfo } from '@cairn/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { decide, threadOf } from '../test-support/inbox-fixture.js';
import { writes } from '../testing/contract-context.js';
import { type OpenedTempProject, openTempProject } from '../testing/temp-project.js';

const CONFIG = { checks: { test: { command: ['sh', '-c', 'cat value.txt; grep -q good value.txt'], timeoutMs: 120_000 } } };

let temp: OpenedTempProject;
let project: Project;
beforeEach(async () => {
  temp = await openTempProject({ 'value.txt': 'good\n', '.cairn/config.json': JSON.stringify(CONFIG) });
  project = temp.project;
});
afterEach(async () => {
  await temp[Symbol.asyncDispose]();
});

/** The agent's check results once none is pending (polled: the checks run in the background). */
async function settled(id: string): Promise<CheckResultInfo[]> {
  for (;;) {
    const results = await project.checks(id);
    if (results.length > 0 && results.every((r) => r.status !== 'pending')) return results;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function running(command: string): boolean {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .some((line) => line.startsWith(command) || line.startsWith(`sh -c ${command}`));
}

async function reviewing(code: string): Promise<string> {
  const agent = await project.spawn('change the value', { code });
  expect((await project.wait(agent.id)).state).toBe('reviewing');
  return agent.id;
}

describe('automatic checks', () => {
  it('run on every proposal that reaches reviewing, with events, and gate accept until they pass', async () => {
    const events: string[] = [];
    const stream = project.events();
    void (async () => {
      for await (const event of stream) if (event.type === 'check.started' || event.type === 'check.finished') events.push(event.type);
    })();
    const good = await reviewing(writes('other.txt', 'x\n'));
    expect(await settled(good)).toEqual([expect.objectContaining({ name: 'test', status: 'passed', exitCode: 0, auto: true })]);
    expect(events).toEqual(['check.started', 'check.finished']);
    expect((await project.accept(good)).ok).toBe(true);

    const bad = await reviewing(writes('value.txt', 'bad\n'));
    expect(await settled(bad)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 1 })]);
    expect((await project.checkOutput(bad, 'test')).output).toBe('bad\n');
    await expect(project.accept(bad)).rejects.toMatchObject({
      code: 'CAIRN_INVALID_STATE',
      message: `agent ${bad}'s checks did not pass: test failed (exit 1)`,
    });
    expect(temp.read('value.txt')).toBe('good\n');
    expect((await project.accept(bad, { force: true })).ok).toBe(true);
    expect(temp.read('value.txt')).toBe('bad\n');
  });

  it('go stale when the working tree moves under the proposal, and run again', async () => {
    const id = await reviewing(writes('other.txt', 'x\n'));
    expect((await settled(id))[0]?.status).toBe('passed');
    temp.write('value.txt', 'bad now\n');
    await project.sync();
    expect((await project.checks(id))[0]?.status).toMatch(/pending|failed/);
    expect(await settled(id)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 1 })]);
    await expect(project.accept(id)).rejects.toMatchObject({ message: expect.stringContaining('test failed (exit 1)') });
  });

  it('only go stale where a process shows the project (no daemon), and run again once a daemon opens it', async () => {
    const id = await reviewing(writes('other.txt', 'x\n'));
    expect((await settled(id))[0]?.status).toBe('passed');
    temp.write('value.txt', 'bad now\n');
    const shows = temp.open({ queue: 'none' });
    expect((await shows.sync()).updated).toBe(1);
    expect(await shows.checks(id)).toEqual([expect.objectContaining({ status: 'stale' })]);
    await shows.close();
    expect(await project.checks(id)).toEqual([expect.objectContaining({ status: 'stale' })]);

    await project.close();
    project = temp.open({ queue: 'all' });
    expect(await settled(id)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 1 })]);
  });

  it('go stale when stopped in a process that does not run every agent, and run again once a daemon opens', async () => {
    const tag = `62${Math.floor(Math.random() * 100000)}`;
    temp.write('.cairn/config.json', JSON.stringify({ checks: { test: { command: ['sh', '-c', `sleep ${tag}`] } } }));
    const id = await reviewing(writes('other.txt', 'x\n'));
    while (!running(`sleep ${tag}`)) await new Promise((resolve) => setTimeout(resolve, 50));
    await project.stopChecks();
    expect(running(`sleep ${tag}`)).toBe(false);
    expect(await project.checks(id)).toEqual([expect.objectContaining({ status: 'stale' })]);

    temp.write('.cairn/config.json', JSON.stringify(CONFIG));
    await project.close();
    project = temp.open({ queue: 'all' });
    expect(await settled(id)).toEqual([expect.objectContaining({ name: 'test', status: 'passed' })]);
  });

  it('keep the result of the run on the moved tree, not of the earlier run it superseded that ends first', async () => {
    // each run waits on a gate file of its own (by what it found), so the test says which ends first
    const gated =
      'grep -q good value.txt; r=$?; g=gate-new.txt; [ $r = 0 ] && g=gate-old.txt; while grep -q wait $g; do sleep 0.05; done; exit $r';
    temp.write('gate-old.txt', 'wait\n');
    temp.write('gate-new.txt', 'wait\n');
    temp.write('.cairn/config.json', JSON.stringify({ checks: { test: { command: ['sh', '-c', gated], timeoutMs: 120_000 } } }));
    const waiting = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.startsWith(`sh -c ${gated}`)).length;
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    const id = await reviewing(writes('other.txt', 'x\n'));
    await until(() => waiting() === 1);
    temp.write('value.txt', 'bad now\n');
    await project.sync();
    await until(() => waiting() === 2);
    temp.write('gate-old.txt', 'go\n');
    await until(() => waiting() === 1);
    temp.write('gate-new.txt', 'go\n');
    expect(await settled(id)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 1 })]);
  });

  it('go stale when the working tree moved while nothing watched it, once a watcher (cairn up) imports it', async () => {
    const id = await reviewing(writes('other.txt', 'x\n'));
    expect((await settled(id))[0]?.status).toBe('passed');
    temp.write('value.txt', 'bad now\n');
    const watcher = project.watch();
    try {
      expect((await watcher.ready).updated).toBe(1);
      expect((await project.checks(id))[0]?.status).toMatch(/pending|failed/);
      expect(await settled(id)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 1 })]);
    } finally {
      await watcher.close();
    }
  });

  it("go stale when an accept or an undo moves the working tree under another agent's proposal, and run again", async () => {
    const other = await reviewing(writes('other.txt', 'x\n'));
    expect((await settled(other))[0]?.status).toBe('passed');
    const bad = await reviewing(writes('value.txt', 'bad\n'));
    expect((await settled(bad))[0]?.status).toBe('failed');
    expect((await project.accept(bad, { force: true })).ok).toBe(true);
    expect(await settled(other)).toEqual([expect.objectContaining({ status: 'failed', exitCode: 1 })]);
    await project.undo(bad);
    expect(temp.read('value.txt')).toBe('good\n');
    expect(await settled(other)).toEqual([expect.objectContaining({ status: 'passed' })]);
  });

  it('are killed when a daemon closes, and run again when it next opens', async () => {
    const tag = `61${Math.floor(Math.random() * 100000)}`;
    temp.write('.cairn/config.json', JSON.stringify({ checks: { test: { command: ['sh', '-c', `sleep ${tag}`] } } }));
    const daemon = temp.open({ queue: 'all' });
    const agent = await daemon.spawn('change the value', { code: writes('other.txt', 'x\n') });
    expect((await daemon.wait(agent.id)).state).toBe('reviewing');
    while (!running(`sleep ${tag}`)) await new Promise((resolve) => setTimeout(resolve, 50));
    await daemon.close();
    expect(running(`sleep ${tag}`)).toBe(false);
    expect((await project.checks(agent.id))[0]?.status).toBe('pending');

    temp.write('.cairn/config.json', JSON.stringify(CONFIG));
    project = temp.open({ queue: 'all' });
    expect(await settled(agent.id)).toEqual([expect.objectContaining({ name: 'test', status: 'passed' })]);
  });

  it('follow the checks declared now: one made on-demand or removed since gates no accept', async () => {
    const first = await reviewing(writes('value.txt', 'bad\n'));
    expect((await settled(first))[0]?.status).toBe('failed');
    temp.write('.cairn/config.json', JSON.stringify({ checks: { test: { ...CONFIG.checks.test, auto: false } } }));
    expect((await project.accept(first)).ok).toBe(true);
    expect(await project.checks(first)).toEqual([expect.objectContaining({ name: 'test', auto: false })]);

    temp.write('.cairn/config.json', JSON.stringify(CONFIG));
    const second = await reviewing(writes('other.txt', 'y\n'));
    expect((await settled(second))[0]?.status).toBe('failed');
    temp.write('.cairn/config.json', JSON.stringify({ checks: {} }));
    expect((await project.accept(second)).ok).toBe(true);
    expect(await project.checks(second)).toEqual([]);
  });

  it('go stale when the agent revises, and run on the revision', async () => {
    const id = await reviewing(`
const feedback = await get_task();
await write_file('value.txt', feedback.includes('Feedback') ? 'good again\\n' : 'bad\\n');
await submit_result('value', ['value.txt']);`);
    expect((await settled(id))[0]?.status).toBe('failed');
    await project.reply(id, 'make it good');
    expect((await project.wait(id)).state).toBe('reviewing');
    expect(await settled(id)).toEqual([expect.objectContaining({ status: 'passed' })]);
    expect((await project.checkOutput(id, 'test')).output).toBe('good again\n');
  });

  it("show in the inbox thread's Checks section, and the inbox rule refuses a merge until they pass", async () => {
    temp.write('.cairn/config.json', JSON.stringify({ ...CONFIG, inbox: { requirePassingChecks: true } }));
    const id = await reviewing(writes('value.txt', 'bad\n'));
    expect((await settled(id))[0]?.status).toBe('failed');
    const name = threadOf(project, id);
    const thread = readFileSync(join(project.layout.inboxDir, name), 'utf8');
    expect(thread).toMatch(/## Checks\n\n- ✗ `test` failed \(exit 1\) \(\d+\.\d s\)\n\n## Diff/);
    decide(project, name, 'do:merge', 'alice');
    const outcome = await project.processInbox();
    expect(outcome.results[0]).toMatchObject({
      outcome: 'refused',
      rule: 'merge-requires-passing-checks',
      reason: expect.stringContaining(`${id}'s checks did not pass: test failed (exit 1)`),
    });
    expect(temp.read('value.txt')).toBe('good\n');
  });

  it('run on the proposal merged onto the working tree as it is now, once the tree moved under it', async () => {
    temp.write('pair.txt', 'a\nmid\nb\n');
    temp.write(
      '.cairn/config.json',
      JSON.stringify({ checks: { both: { command: ['sh', '-c', 'cat pair.txt; grep -q A pair.txt && grep -q B pair.txt'] } } }),
    );
    await project.sync();
    const id = await reviewing(writes('pair.txt', 'A\nmid\nb\n'));
    expect((await settled(id))[0]?.status).toBe('failed');
    // the human changes the other line: the agent's copy still has b, the merge has both
    temp.write('pair.txt', 'a\nmid\nB\n');
    await project.sync();
    expect(await settled(id)).toEqual([expect.objectContaining({ name: 'both', status: 'passed' })]);
    expect((await project.checkOutput(id, 'both')).output).toBe('A\nmid\nB\n');
    expect((await project.accept(id)).ok).toBe(true);
    expect(temp.read('pair.txt')).toBe('A\nmid\nB\n');
  });

  it('let an accept wait while they run again on the moved tree, and take several inbox merges in a row', async () => {
    temp.write('.cairn/config.json', JSON.stringify({ ...CONFIG, inbox: { requirePassingChecks: true } }));
    const first = await reviewing(writes('one.txt', '1\n'));
    const second = await reviewing(writes('two.txt', '2\n'));
    for (const id of [first, second]) expect((await settled(id))[0]?.status).toBe('passed');
    const waits: string[] = [];
    const stream = project.events();
    void (async () => {
      for await (const event of stream) if (event.type === 'accept.waiting') waits.push(`${event.agentId} ${event.for}`);
    })();
    // both merges decided, processed in one pass: the first moves the tree, the second's checks run again first
    decide(project, threadOf(project, first), 'do:merge', 'alice');
    decide(project, threadOf(project, second), 'do:merge', 'alice');
    const outcome = await project.processInbox();
    expect(outcome.results.map((r) => r.outcome)).toEqual(['merged', 'merged']);
    // whichever thread came second waited for its checks to run again on the tree the first merge left
    expect(waits.filter((wait) => wait === `${first} checks` || wait === `${second} checks`)).toHaveLength(1);
    expect(temp.read('one.txt')).toBe('1\n');
    expect(temp.read('two.txt')).toBe('2\n');

    // an accept made while checks are stale waits for them instead of refusing
    const third = await reviewing(writes('three.txt', '3\n'));
    expect((await settled(third))[0]?.status).toBe('passed');
    temp.write('value.txt', 'good still\n');
    await project.sync();
    expect((await project.checks(third))[0]?.status).toMatch(/pending|stale/);
    expect((await project.accept(third)).agent.state).toBe('accepted');
    expect((await project.checks(third))[0]?.status).toBe('passed');
  });
});
