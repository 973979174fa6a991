import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseThread } from '@cairn/triage';
import { describe, expect, it } from 'vitest';
import { wireProject } from '../project/open-project.js';
import { Project } from '../project/project.js';
import { acceptProposal } from '../review/accept.js';
import { auditEntries, decide, eachProjectAsAlice, proposal, reviewer, threadOf } from '../test-support/inbox-fixture.js';
import { type OpenedTempProject, SAMPLE_FILES } from '../testing/temp-project.js';
import { DecisionStore } from './decision-store.js';
import { decisionKey } from './inbox.js';

let temp: OpenedTempProject;
let project: Project;

eachProjectAsAlice((opened) => {
  temp = opened;
  project = opened.project;
});

describe('reviewer agents', () => {
  it('read the proposal and decide; a write is a journaled denial; a merge from a non-approver is refused', async () => {
    const id = await proposal(project);
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
    const id = await proposal(project);
    const started = await project.review(id, { as: 'lint-bot' });
    expect((await project.wait(started.id)).state).toBe('decided');
    expect((await project.agent(id)).state).toBe('accepted');
    expect(temp.read('src/greet.js')).toContain('const text');
    expect(auditEntries(project).map((e) => [e.decision, e.executed])).toContainEqual(['do:merge', '✓ merged']);
  });

  it("a refused decision is history: an approver's later decision replaces it and merges, and the log keeps both", async () => {
    temp.write('.cairn/reviewers/approve.js', reviewer('do:merge', 'approved'));
    temp.write(
      '.cairn/config.json',
      JSON.stringify({ inbox: { reviewers: { 'lint-bot': { code: '.cairn/reviewers/approve.js', approver: true } } } }),
    );
    const id = await proposal(project);
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
    expect(auditEntries(project).map((e) => e.executed)).toEqual(['—', '✗ refused: merge-requires-approval', '✓ merged']);
  });

  it('an approval recorded earlier still counts when a later decision replaces the refused one', async () => {
    const id = await proposal(project);
    temp.write('src/greet.js', 'export function greet(name) {\n  let text = "Hi, " + name;\n  return text;\n}\n');
    await project.sync();
    decide(project, threadOf(project, id), 'do:merge');
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'refused', rule: 'merge-requires-rebase' });
    temp.write('src/greet.js', SAMPLE_FILES['src/greet.js']!);
    await project.sync();
    const bot = await project.review(id, { code: reviewer('do:merge', 'rebased') });
    await project.wait(bot.id);
    expect((await project.agent(id)).state).toBe('accepted');
    expect(auditEntries(project).map((e) => e.executed)).toEqual(['—', '✗ refused: merge-requires-rebase', '✓ merged']);
  });

  it('a decision not carried out yet is not overwritten by a reviewer', async () => {
    const id = await proposal(project);
    decide(project, threadOf(project, id), 'defer:after the release');
    const bot = await project.review(id, { code: reviewer('do:merge') });
    const decided = await project.wait(bot.id);
    expect(decided.reason).toContain('not carried out yet (defer:after the release by alice)');
    expect(readFileSync(join(project.layout.inboxDir, threadOf(project, id)), 'utf8')).not.toContain(`## Review by ${bot.id}`);
    expect((await project.processInbox()).results[0]).toMatchObject({ outcome: 'deferred' });
    const again = await project.review(id, { code: reviewer('delete:not needed') });
    await project.wait(again.id);
    expect((await project.inbox())[0]).toMatchObject({ status: 'refused', rule: 'only-creator-deletes', actor: again.id });
  });

  it('a reviewer that may not delete is refused by rule; one that never decides fails', async () => {
    const id = await proposal(project);
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
    const id = await proposal(project);
    decide(project, threadOf(project, id), 'do:merge');
    const other = temp.open();
    try {
      const [a, b] = await Promise.all([project.processInbox(), other.processInbox()]);
      const merged = [...a.results, ...b.results].filter((r) => r.outcome === 'merged');
      expect(merged).toHaveLength(1);
    } finally {
      await other.close();
    }
    expect(auditEntries(project).filter((e) => e.executed === '✓ merged')).toHaveLength(1);
  });

  it('a decision claimed by a process that died is finished from what it did, not done again', async () => {
    const id = await proposal(project);
    const name = threadOf(project, id);
    decide(project, name, 'do:merge');
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
    expect(auditEntries(project).filter((e) => e.decision === 'do:merge')).toHaveLength(1);
  });
});
