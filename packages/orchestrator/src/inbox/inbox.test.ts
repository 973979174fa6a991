import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseThread } from '@cairn/triage';
import { describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import {
  ADD_MUL,
  auditEntries,
  decide,
  eachProjectAsAlice,
  inboxFiles,
  proposal,
  threadOf,
  USE_CONST,
} from '../test-support/inbox-fixture.js';
import { type OpenedTempProject, SAMPLE_FILES } from '../testing/temp-project.js';

let temp: OpenedTempProject;
let project: Project;

eachProjectAsAlice((opened) => {
  temp = opened;
  project = opened.project;
});

describe('threads', () => {
  it('are written when an agent reaches reviewing, in seed 002 format, and logged as received', async () => {
    const id = await proposal(project);
    const name = threadOf(project, id);
    expect(name).toMatch(new RegExp(`^\\d{8}-${id}-use-const-in-greet\\.md$`));
    const parsed = parseThread(readFileSync(join(project.layout.inboxDir, name), 'utf8'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.title).toBe(`${id}/use-const-in-greet`);
    expect(parsed.value.from).toBe(id);
    expect(parsed.value.branch).toBe(`alice/${id}`);
    expect(parsed.value.body).toContain('+  const text = "Hello, " + name;');
    expect(parsed.value.body).toContain('- modified `src/greet.js`');
    expect(parsed.value.triage).toBeUndefined();
    expect(auditEntries(project)).toEqual([
      expect.objectContaining({ source: `${id}/use-const-in-greet`, decision: 'received', executed: '—' }),
    ]);
    expect((await project.inbox()).map((t) => [t.name, t.status])).toEqual([[name, 'pending']]);
    // .cairn/ is never imported: the thread is not in stable, and agents cannot read it
    const files = (await project.sync()).files;
    expect(files).toBe(Object.keys(SAMPLE_FILES).length);
  });

  it("a person's do:merge written in the file is carried out once: merged, moved to done/, logged", async () => {
    const id = await proposal(project);
    const name = threadOf(project, id);
    decide(project, name, 'do:merge');
    expect((await project.inbox())[0]).toMatchObject({ name, status: 'decided', decision: 'do:merge', actor: 'alice' });
    const first = await project.processInbox();
    expect(first.ok).toBe(true);
    expect(first.results).toEqual([expect.objectContaining({ thread: name, outcome: 'merged', executed: '✓ merged', movedTo: name })]);
    expect(temp.read('src/greet.js')).toContain('const text');
    expect((await project.agent(id)).state).toBe('accepted');
    expect(inboxFiles(project)).toEqual([]);
    expect(inboxFiles(project, true)).toEqual([name]);
    expect((await project.processInbox()).results).toEqual([]);
    expect(auditEntries(project).map((e) => [e.decision, e.executed])).toEqual([
      ['received', '—'],
      ['do:merge', '✓ merged'],
    ]);
  });

  it('cairn accept and reject write the section for the person', async () => {
    const a = await proposal(project);
    const b = await proposal(project, ADD_MUL, 'add mul');
    await project.accept(a);
    await project.reject(b, 'not needed\nat all');
    const done = inboxFiles(project, true).map((n) => parseThread(readFileSync(join(project.layout.inboxDoneDir, n), 'utf8')));
    const decisions = done.map((t) => (t.ok ? [t.value.from, t.value.triage?.decision, t.value.triage?.actor] : t.error));
    expect(decisions).toEqual(
      expect.arrayContaining([
        [a, { type: 'do', action: { type: 'merge' } }, 'alice'],
        [b, { type: 'delete', reason: 'not needed at all' }, 'alice'],
      ]),
    );
    expect(
      auditEntries(project)
        .filter((e) => e.decision !== 'received')
        .map((e) => e.executed),
    ).toEqual(['✓ merged', '✓ deleted']);
  });
});

describe('the protocol', () => {
  it('refuses a self-merge, a merge without approval, and a delete by anyone but the owner, naming the rule', async () => {
    const id = await proposal(project);
    const name = threadOf(project, id);
    decide(project, name, 'do:merge', id);
    let outcome = await project.processInbox();
    expect(outcome.ok).toBe(false);
    expect(outcome.results[0]).toMatchObject({ outcome: 'refused', rule: 'no-self-merge', executed: '✗ refused: no-self-merge' });
    expect((await project.inbox())[0]).toMatchObject({ status: 'refused', rule: 'no-self-merge' });
    expect((await project.agent(id)).state).toBe('reviewing');

    writeFileSync(
      join(project.layout.inboxDir, name),
      readFileSync(join(project.layout.inboxDir, name), 'utf8')
        .replace(/actor: .*/, 'actor: bob')
        .replace('do:merge', 'delete:bad'),
    );
    outcome = await project.processInbox();
    expect(outcome.results[0]).toMatchObject({ outcome: 'refused', rule: 'only-creator-deletes' });
    expect((await project.agent(id)).state).toBe('reviewing');
    expect(auditEntries(project).map((e) => e.executed)).toEqual(['—', '✗ refused: no-self-merge', '✗ refused: only-creator-deletes']);
  });

  it('refuses a merge that no longer applies cleanly (merge requires rebase), and says where', async () => {
    const id = await proposal(project);
    temp.write('src/greet.js', 'export function greet(name) {\n  let text = "Hi, " + name;\n  return text;\n}\n');
    await project.sync();
    decide(project, threadOf(project, id), 'do:merge');
    const outcome = await project.processInbox();
    expect(outcome.results[0]).toMatchObject({ outcome: 'refused', rule: 'merge-requires-rebase' });
    expect(outcome.results[0]!.reason).toContain('src/greet.js');
    expect(temp.read('src/greet.js')).toContain('let text');
    expect((await project.agent(id)).state).toBe('reviewing');
  });

  it('says what is in the way when its folders or settings are not usable, instead of showing an empty inbox', async () => {
    const id = await proposal(project);
    rmSync(join(temp.root, '.cairn/threads'), { recursive: true, force: true });
    temp.write('.cairn/threads', 'not a folder');
    await expect(project.inbox()).rejects.toMatchObject({
      code: 'CAIRN_PROJECT',
      message: expect.stringContaining('a file is in the way'),
    });
    rmSync(join(temp.root, '.cairn/logs'), { recursive: true, force: true });
    temp.write('.cairn/logs', 'not a folder');
    await expect(project.inboxLog()).rejects.toMatchObject({ code: 'CAIRN_PROJECT', message: expect.stringContaining('.cairn/logs') });
    mkdirSync(join(temp.root, '.cairn/config.json'));
    await expect(project.review(id, { as: 'lint-bot' })).rejects.toMatchObject({
      code: 'CAIRN_CONFIG',
      message: '.cairn/config.json cannot be read: it is a folder',
    });
  });

  it('keeps a malformed decision in place with line and column, never half-executed', async () => {
    const id = await proposal(project);
    const name = threadOf(project, id);
    const cases = ['Do:Merge', 'merge', 'delete:', 'do:merge\n\n## Triage\n\ndecision: do:merge'];
    for (const bad of cases) {
      const original = readFileSync(join(project.layout.inboxDir, name), 'utf8');
      decide(project, name, bad);
      const outcome = await project.processInbox();
      expect(outcome.ok).toBe(false);
      expect(outcome.results[0]!.outcome).toBe('invalid');
      const listed = (await project.inbox())[0]!;
      expect(listed.status).toBe('invalid');
      expect(listed.diagnostics![0]!.line).toBeGreaterThan(1);
      expect(listed.diagnostics![0]!.column).toBeGreaterThanOrEqual(1);
      expect((await project.agent(id)).state).toBe('reviewing');
      writeFileSync(join(project.layout.inboxDir, name), original);
    }
    // CRLF line ends are a valid file
    const path = join(project.layout.inboxDir, name);
    decide(project, name, 'do:merge');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/\n/g, '\r\n'));
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'merged' });
  });
});

describe('decisions', () => {
  it('a reject decided as soon as the agent reaches reviewing is carried out, and the agent restores whole', async () => {
    const agent = await project.spawn('use const in greet', { code: USE_CONST });
    // decided as soon as the agent reaches reviewing, when its run may not have closed the overlay yet
    const processed = project.wait(agent.id).then(() => {
      decide(project, threadOf(project, agent.id), 'delete:not now');
      return project.processInbox();
    });
    expect((await processed).results[0]).toMatchObject({ outcome: 'rejected' });
    expect(readdirSync(project.layout.agentfsDir).filter((name) => name.startsWith(`agent-${agent.id}.`))).toEqual([]);
    expect((await project.restore(agent.id)).state).toBe('reviewing');
    expect(await project.diff(agent.id)).toContain('+  const text = "Hello, " + name;');
  });

  it('defer stays listed with its reason; delegate re-addresses the thread; reply revises in the same overlay', async () => {
    const id = await proposal(project);
    let name = threadOf(project, id);
    decide(project, name, 'defer:after the release');
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'deferred', executed: '— deferred: after the release' });
    expect((await project.inbox())[0]).toMatchObject({ name, status: 'deferred', reason: 'after the release' });
    expect((await project.processInbox()).results).toEqual([]);

    writeFileSync(
      join(project.layout.inboxDir, name),
      readFileSync(join(project.layout.inboxDir, name), 'utf8').replace('defer:after the release', 'delegate:bob'),
    );
    expect((await project.processInbox()).results[0]).toMatchObject({
      outcome: 'delegated',
      executed: '✓ delegated to bob',
      movedTo: name,
    });
    name = threadOf(project, id);
    expect(readFileSync(join(project.layout.inboxDir, name), 'utf8')).toContain('Delegated to bob by alice');

    decide(project, name, 'do:reply:alice/fix', 'bob', '\n## Feedback\n\nAlso rename text to message.\n');
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'replied', executed: '✓ replied on alice/fix' });
    const revised = await project.wait(id);
    expect(revised.state).toBe('reviewing');
    expect(revised.runs).toBe(2);
    expect((await project.history(id, 50)).some((e) => e.type === 'agent.replied' && e.feedback === 'Also rename text to message.')).toBe(
      true,
    );
    expect(threadOf(project, id)).not.toBe(name);
  });

  it('a custom decision is recorded without a handler, and carried out by the configured one', async () => {
    const id = await proposal(project);
    const name = threadOf(project, id);
    decide(project, name, 'do:custom:notify the team');
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'unhandled', executed: '— custom: no handler configured' });
    expect((await project.inbox())[0]).toMatchObject({ status: 'unhandled' });
    temp.write(
      '.cairn/config.json',
      JSON.stringify({ inbox: { customHandler: { command: ['sh', '-c', 'echo "$CAIRN_AGENT $CAIRN_DESCRIPTION" > custom.out'] } } }),
    );
    writeFileSync(
      join(project.layout.inboxDir, name),
      readFileSync(join(project.layout.inboxDir, name), 'utf8').replace('10:00Z', '10:05Z'),
    );
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'custom', executed: '✓ custom: notify the team' });
    expect(temp.read('custom.out')).toBe(`${id} notify the team\n`);
  });
});
