import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAuditLog, parseThread } from '@cairn/triage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wireProject } from '../project/open-project.js';
import { Project } from '../project/project.js';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '../test-support/temp-project.js';
import { DecisionStore } from './decision-store.js';
import { decisionKey } from './inbox.js';
import { acceptProposal } from '../review/accept.js';

const USE_CONST = `
const text = await read_file('src/greet.js');
await write_file('src/greet.js', text.replace('var text', 'const text'));
await submit_result('use const in greet', ['src/greet.js']);
`;

const ADD_MUL = `
const text = await read_file('src/math.js');
await write_file('src/math.js', text + '\\nexport function mul(a, b) {\\n  return a * b;\\n}\\n');
await submit_result('add mul', ['src/math.js']);
`;

/** A reviewer that reads the proposal, tries to write (and is denied), then decides. */
const reviewer = (decision: string, note = 'checked') => `
const proposal = await get_proposal();
log('reviewing ' + proposal.agent + ': ' + proposal.changes.map((c) => c.path).join(', '));
try {
  await write_file('src/greet.js', 'overwritten by a reviewer');
} catch (error) {
  log('denied as expected: ' + error.message);
}
await decide(${JSON.stringify(decision)}, ${JSON.stringify(note)});
`;

let temp: TempProject;
let project: Project;

beforeEach(async () => {
  process.env.CAIRN_USER = 'alice';
  temp = makeTempProject(SAMPLE_FILES);
  project = temp.open();
  await project.sync();
});

afterEach(async () => {
  await project.close();
  temp.cleanup();
  delete process.env.CAIRN_USER;
});

async function proposal(code = USE_CONST, task = 'use const in greet'): Promise<string> {
  const agent = await project.spawn(task, { code });
  expect((await project.wait(agent.id)).state).toBe('reviewing');
  return agent.id;
}

function inboxFiles(done = false): string[] {
  const dir = done ? project.layout.inboxDoneDir : project.layout.inboxDir;
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.md')) : [];
}

function threadOf(id: string): string {
  const name = inboxFiles().find((n) => n.includes(`-${id}-`));
  if (name === undefined) throw new Error(`no thread for ${id}`);
  return name;
}

function decide(name: string, decision: string, actor = 'alice', extra = ''): void {
  const path = join(project.layout.inboxDir, name);
  writeFileSync(
    path,
    `${readFileSync(path, 'utf8')}${extra}\n---\n\n## Triage\n\ndecision: ${decision}\nactor: ${actor}\ntimestamp: 2026-11-23T10:00Z\n`,
  );
}

function auditEntries() {
  const dir = project.layout.auditDir;
  const files = existsSync(dir) ? readdirSync(dir) : [];
  return files.flatMap((file) => {
    const parsed = parseAuditLog(readFileSync(join(dir, file), 'utf8'));
    if (!parsed.ok) throw new Error(`the audit log does not read back: ${JSON.stringify(parsed.error)}`);
    return parsed.value.entries;
  });
}

describe('threads', () => {
  it('are written when an agent reaches reviewing, in seed 002 format, and logged as received', async () => {
    const id = await proposal();
    const name = threadOf(id);
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
    expect(auditEntries()).toEqual([expect.objectContaining({ source: `${id}/use-const-in-greet`, decision: 'received', executed: '—' })]);
    expect((await project.inbox()).map((t) => [t.name, t.status])).toEqual([[name, 'pending']]);
    // .cairn/ is never imported: the thread is not in stable, and agents cannot read it
    const files = (await project.sync()).files;
    expect(files).toBe(Object.keys(SAMPLE_FILES).length);
  });

  it("a person's do:merge written in the file is carried out once: merged, moved to done/, logged", async () => {
    const id = await proposal();
    const name = threadOf(id);
    decide(name, 'do:merge');
    expect((await project.inbox())[0]).toMatchObject({ name, status: 'decided', decision: 'do:merge', actor: 'alice' });
    const first = await project.processInbox();
    expect(first.ok).toBe(true);
    expect(first.results).toEqual([expect.objectContaining({ thread: name, outcome: 'merged', executed: '✓ merged', movedTo: name })]);
    expect(temp.read('src/greet.js')).toContain('const text');
    expect((await project.agent(id)).state).toBe('accepted');
    expect(inboxFiles()).toEqual([]);
    expect(inboxFiles(true)).toEqual([name]);
    expect((await project.processInbox()).results).toEqual([]);
    expect(auditEntries().map((e) => [e.decision, e.executed])).toEqual([
      ['received', '—'],
      ['do:merge', '✓ merged'],
    ]);
  });

  it('cairn accept and reject write the section for the person', async () => {
    const a = await proposal();
    const b = await proposal(ADD_MUL, 'add mul');
    await project.accept(a);
    await project.reject(b, 'not needed\nat all');
    const done = inboxFiles(true).map((n) => parseThread(readFileSync(join(project.layout.inboxDoneDir, n), 'utf8')));
    const decisions = done.map((t) => (t.ok ? [t.value.from, t.value.triage?.decision, t.value.triage?.actor] : t.error));
    expect(decisions).toEqual(
      expect.arrayContaining([
        [a, { type: 'do', action: { type: 'merge' } }, 'alice'],
        [b, { type: 'delete', reason: 'not needed at all' }, 'alice'],
      ]),
    );
    expect(
      auditEntries()
        .filter((e) => e.decision !== 'received')
        .map((e) => e.executed),
    ).toEqual(['✓ merged', '✓ deleted']);
  });
});

describe('the protocol', () => {
  it('refuses a self-merge, a merge without approval, and a delete by anyone but the owner, naming the rule', async () => {
    const id = await proposal();
    const name = threadOf(id);
    decide(name, 'do:merge', id);
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
    expect(auditEntries().map((e) => e.executed)).toEqual(['—', '✗ refused: no-self-merge', '✗ refused: only-creator-deletes']);
  });

  it('refuses a merge that no longer applies cleanly (merge requires rebase), and says where', async () => {
    const id = await proposal();
    temp.write('src/greet.js', 'export function greet(name) {\n  let text = "Hi, " + name;\n  return text;\n}\n');
    await project.sync();
    decide(threadOf(id), 'do:merge');
    const outcome = await project.processInbox();
    expect(outcome.results[0]).toMatchObject({ outcome: 'refused', rule: 'merge-requires-rebase' });
    expect(outcome.results[0]!.reason).toContain('src/greet.js');
    expect(temp.read('src/greet.js')).toContain('let text');
    expect((await project.agent(id)).state).toBe('reviewing');
  });

  it('says what is in the way when its folders or settings are not usable, instead of showing an empty inbox', async () => {
    const id = await proposal();
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
    const id = await proposal();
    const name = threadOf(id);
    const cases = ['Do:Merge', 'merge', 'delete:', 'do:merge\n\n## Triage\n\ndecision: do:merge'];
    for (const bad of cases) {
      const original = readFileSync(join(project.layout.inboxDir, name), 'utf8');
      decide(name, bad);
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
    decide(name, 'do:merge');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/\n/g, '\r\n'));
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'merged' });
  });
});

describe('decisions', () => {
  it('defer stays listed with its reason; delegate re-addresses the thread; reply revises in the same overlay', async () => {
    const id = await proposal();
    let name = threadOf(id);
    decide(name, 'defer:after the release');
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
    name = threadOf(id);
    expect(readFileSync(join(project.layout.inboxDir, name), 'utf8')).toContain('Delegated to bob by alice');

    decide(name, 'do:reply:alice/fix', 'bob', '\n## Feedback\n\nAlso rename text to message.\n');
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'replied', executed: '✓ replied on alice/fix' });
    const revised = await project.wait(id);
    expect(revised.state).toBe('reviewing');
    expect(revised.runs).toBe(2);
    expect((await project.history(id, 50)).some((e) => e.type === 'agent.replied' && e.feedback === 'Also rename text to message.')).toBe(
      true,
    );
    expect(threadOf(id)).not.toBe(name);
  });

  it('a custom decision is recorded without a handler, and carried out by the configured one', async () => {
    const id = await proposal();
    const name = threadOf(id);
    decide(name, 'do:custom:notify the team');
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

describe('reviewer agents', () => {
  it('read the proposal and decide; a write is a journaled denial; a merge from a non-approver is refused', async () => {
    const id = await proposal();
    const started = await project.review(id, { code: reviewer('do:merge', 'looks right') });
    expect(started.role).toBe('reviewer');
    const done = await project.wait(started.id);
    expect(done.state).toBe('decided');
    expect(done.decision).toMatchObject({ decision: 'do:merge', note: 'looks right' });
    const journal = await project.journal(started.id);
    expect(journal.rows.some((r) => r.effect === 'fs.write' && r.decision === 'denied')).toBe(true);
    expect(temp.read('src/greet.js')).toContain('var text');
    const [thread] = await project.inbox();
    expect(thread).toMatchObject({ decision: 'do:merge', actor: started.id, status: 'refused', rule: 'merge-requires-approval' });
    expect(readFileSync(thread!.path, 'utf8')).toContain(`## Review by ${started.id}`);
    expect((await project.agent(id)).state).toBe('reviewing');
  });

  it('a reviewer the project names as an approver merges', async () => {
    temp.write('.cairn/reviewers/approve.js', reviewer('do:merge'));
    temp.write(
      '.cairn/config.json',
      JSON.stringify({ inbox: { reviewers: { 'lint-bot': { code: '.cairn/reviewers/approve.js', approver: true } } } }),
    );
    const id = await proposal();
    const started = await project.review(id, { as: 'lint-bot' });
    expect((await project.wait(started.id)).state).toBe('decided');
    expect((await project.agent(id)).state).toBe('accepted');
    expect(temp.read('src/greet.js')).toContain('const text');
    expect(auditEntries().map((e) => [e.decision, e.executed])).toContainEqual(['do:merge', '✓ merged']);
  });

  it("a refused decision is history: an approver's later decision replaces it and merges, and the log keeps both", async () => {
    temp.write('.cairn/reviewers/approve.js', reviewer('do:merge', 'approved'));
    temp.write(
      '.cairn/config.json',
      JSON.stringify({ inbox: { reviewers: { 'lint-bot': { code: '.cairn/reviewers/approve.js', approver: true } } } }),
    );
    const id = await proposal();
    const refused = await project.review(id, { code: reviewer('do:merge', 'looks right') });
    await project.wait(refused.id);
    expect((await project.inbox())[0]).toMatchObject({ status: 'refused', outcome: 'refused', rule: 'merge-requires-approval' });

    const approver = await project.review(id, { as: 'lint-bot' });
    const decided = await project.wait(approver.id);
    expect(decided.reason).not.toContain('not written');
    expect((await project.agent(id)).state).toBe('accepted');
    expect(temp.read('src/greet.js')).toContain('const text');
    const [thread] = await project.inbox({ all: true });
    expect(thread).toMatchObject({ status: 'done', outcome: 'merged', actor: 'lint-bot' });
    const text = readFileSync(thread!.path, 'utf8');
    expect(text).toContain(`## Review by ${refused.id}`);
    expect(text).toContain('## Review by lint-bot');
    expect(auditEntries().map((e) => e.executed)).toEqual(['—', '✗ refused: merge-requires-approval', '✓ merged']);
  });

  it('an approval recorded earlier still counts when a later decision replaces the refused one', async () => {
    const id = await proposal();
    temp.write('src/greet.js', 'export function greet(name) {\n  let text = "Hi, " + name;\n  return text;\n}\n');
    await project.sync();
    decide(threadOf(id), 'do:merge');
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'refused', rule: 'merge-requires-rebase' });
    temp.write('src/greet.js', SAMPLE_FILES['src/greet.js']!);
    await project.sync();
    const bot = await project.review(id, { code: reviewer('do:merge', 'rebased') });
    await project.wait(bot.id);
    expect((await project.agent(id)).state).toBe('accepted');
    expect(auditEntries().map((e) => e.executed)).toEqual(['—', '✗ refused: merge-requires-rebase', '✓ merged']);
  });

  it('a decision not carried out yet is not overwritten by a reviewer', async () => {
    const id = await proposal();
    decide(threadOf(id), 'defer:after the release');
    const bot = await project.review(id, { code: reviewer('do:merge') });
    const decided = await project.wait(bot.id);
    expect(decided.reason).toContain('not carried out yet (defer:after the release by alice)');
    expect(readFileSync(join(project.layout.inboxDir, threadOf(id)), 'utf8')).not.toContain(`## Review by ${bot.id}`);
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'deferred' });
    const again = await project.review(id, { code: reviewer('delete:not needed') });
    await project.wait(again.id);
    expect((await project.inbox())[0]).toMatchObject({ status: 'refused', rule: 'only-creator-deletes', actor: again.id });
  });

  it('a reviewer that may not delete is refused by rule; one that never decides fails', async () => {
    const id = await proposal();
    const deleting = await project.review(id, { code: reviewer('delete:useless') });
    await project.wait(deleting.id);
    expect((await project.inbox())[0]).toMatchObject({ status: 'refused', rule: 'only-creator-deletes' });
    const silent = await project.review(id, { code: "await get_proposal(); log('no opinion');" });
    const failed = await project.wait(silent.id);
    expect(failed.state).toBe('failed');
    expect(failed.failure?.code).toBe('no-decision');
  });
});

describe('once and only once', () => {
  it('two processes processing the same decision carry it out once', async () => {
    const id = await proposal();
    decide(threadOf(id), 'do:merge');
    const other = temp.open();
    try {
      const [a, b] = await Promise.all([project.processInbox(), other.processInbox()]);
      const merged = [...a.results, ...b.results].filter((r) => r.outcome === 'merged');
      expect(merged).toHaveLength(1);
    } finally {
      await other.close();
    }
    expect(auditEntries().filter((e) => e.executed === '✓ merged')).toHaveLength(1);
  });

  it('a decision claimed by a process that died is finished from what it did, not done again', async () => {
    const id = await proposal();
    const name = threadOf(id);
    decide(name, 'do:merge');
    const parsed = parseThread(readFileSync(join(project.layout.inboxDir, name), 'utf8'));
    if (!parsed.ok) throw new Error('thread does not parse');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    // the process that died: the project's services, opened beside this one as another process opens them
    const died = wireProject(project.root, { cairnHome: temp.home });
    new DecisionStore(died.core.store.database).put({
      key: decisionKey(name, parsed.value),
      thread: name,
      agentId: id,
      decision: 'do:merge',
      actor: 'alice',
      state: 'claimed',
      owner: `${dead}:gone`,
      moves: false,
      logged: false,
      approval: true,
      at: Date.now(),
      before: { state: 'reviewing', runs: 1, updatedAt: 0, claimedAt: Date.now() },
    });
    // the dead process got as far as the accept itself
    expect(acceptProposal(died.core, id, {}).ok).toBe(true);
    await new Project(died).close();
    const rerun = await project.processInbox();
    expect(rerun.results).toEqual([expect.objectContaining({ thread: name, outcome: 'merged', executed: '✓ merged', movedTo: name })]);
    expect((await project.history(id, 50)).filter((e) => e.type === 'agent.accepted')).toHaveLength(1);
    expect(auditEntries().filter((e) => e.decision === 'do:merge')).toHaveLength(1);
  });
});
