import type { CairnEvent } from '@cairn/api';
import { expect, it } from 'vitest';
import { type ContractContext, decides, isOf, readAll, writes } from './contract-context.js';

/** The contract of reviewers, the inbox, waiting and the event streams. */
export function describeReviewAndEvents({ api, subject, folder, reviewing, refuses }: ContractContext): void {
  it('review starts a reviewer that reads the proposal and decides; its merge without approval is refused', async () => {
    const agent = await reviewing(writes(`${folder('review')}/v.txt`, 'reviewed\n'), 'contract review');
    const reviewer = await api().review(agent.id, { code: decides('do:merge', 'looks right') });
    expect(reviewer).toMatchObject({ role: 'reviewer', reviews: agent.id, origin: 'code' });
    const decided = await api().wait(reviewer.id);
    expect(decided).toMatchObject({ state: 'decided', decision: { decision: 'do:merge', note: 'looks right' } });
    const thread = (await api().inbox()).find((t) => t.agentId === agent.id);
    expect(thread).toMatchObject({ decision: 'do:merge', actor: reviewer.id, status: 'refused', rule: 'merge-requires-approval' });
    expect((await api().agent(agent.id)).state).toBe('reviewing');
    await refuses(api().review(reviewer.id), 'CAIRN_INVALID_ARGUMENT', /is a reviewer/);
  });

  it('the inbox lists threads; processInbox carries out a decision once; inboxLog reads the audit log', async () => {
    const path = `${folder('inbox')}/i.txt`;
    const agent = await reviewing(writes(path, 'from the inbox\n'), 'contract inbox');
    const thread = (await api().inbox()).find((t) => t.agentId === agent.id);
    expect(thread).toMatchObject({ status: 'pending', from: agent.id, branch: `alice/${agent.id}`, title: `${agent.id}/contract-inbox` });
    const name = thread?.name ?? '';
    expect(name).toMatch(new RegExp(`^\\d{8}-${agent.id}-contract-inbox\\.md$`));
    const file = `.cairn/threads/inbox/${name}`;
    const original = subject().temp.read(file);
    const decide = (decision: string) =>
      subject().temp.write(file, `${original}\n---\n\n## Triage\n\ndecision: ${decision}\nactor: alice\ntimestamp: 2026-11-23T10:00Z\n`);

    decide('Do:Merge');
    const invalid = await api().processInbox({ threads: [name] });
    expect(invalid.ok).toBe(false);
    expect(invalid.results).toEqual([expect.objectContaining({ thread: name, outcome: 'invalid' })]);
    expect(invalid.results[0]?.diagnostics?.[0]?.line).toBeGreaterThan(1);
    expect((await api().agent(agent.id)).state).toBe('reviewing');

    decide('do:merge');
    // a daemon's inbox watcher may carry the decision out first: then this pass finds nothing left to do
    const merged = await api().processInbox({ threads: [name] });
    expect(merged.ok).toBe(true);
    for (const result of merged.results) expect(result).toMatchObject({ thread: name, outcome: 'merged', executed: '✓ merged' });
    expect((await api().wait(agent.id, ['accepted'])).state).toBe('accepted');
    expect(subject().temp.read(path)).toBe('from the inbox\n');
    expect((await api().inbox()).map((t) => t.name)).not.toContain(name);
    expect((await api().inbox({ all: true })).find((t) => t.name === name)).toMatchObject({ status: 'done', outcome: 'merged' });
    expect(await api().processInbox({ threads: [name] })).toEqual({ ok: true, results: [] });

    const today = new Date().toISOString().slice(0, 10);
    const log = await api().inboxLog();
    expect(log.date).toBe(today);
    expect(log.problems).toBeUndefined();
    expect(log.entries).toContainEqual(
      expect.objectContaining({ source: `${agent.id}/contract-inbox`, decision: 'received', executed: '—' }),
    );
    expect(log.entries).toContainEqual(
      expect.objectContaining({ source: `${agent.id}/contract-inbox`, decision: 'do:merge', executed: '✓ merged' }),
    );
    expect(await api().inboxLog(today)).toEqual(log);
    expect(await api().inboxLog('2001-01-01')).toMatchObject({ date: '2001-01-01', entries: [] });
  });

  it('wait resolves once the agent reaches one of the states asked for', async () => {
    const agent = await reviewing(writes(`${folder('wait')}/w.txt`, 'w\n'));
    const waiting = api().wait(agent.id, ['accepted', 'rejected']);
    await api().reject(agent.id, 'waited for');
    expect(await waiting).toMatchObject({ id: agent.id, state: 'rejected', reason: 'waited for' });
    expect(await api().wait(agent.id)).toMatchObject({ state: 'rejected' });
  });

  it("subscribe resolves once the stream is open: an agent's events from then on, until `until` matches", async () => {
    const dir = folder('subscribe');
    const a = await reviewing(writes(`${dir}/a.txt`, 'a\n'));
    const b = await reviewing(writes(`${dir}/b.txt`, 'b\n'));
    const stream = await api().subscribe({ agentId: a.id, until: (e) => e.type === 'agent.restored' });
    await api().reject(b.id, 'noise');
    await api().restore(b.id);
    await api().reject(a.id, 'one');
    await api().restore(a.id);
    await api().reject(a.id, 'after the end');
    const seen = await readAll(stream);
    // a restored proposal gets its inbox thread back (`inbox.received`), which is the agent's event too
    expect(seen.filter((e) => e.type.startsWith('agent.')).map((e) => e.type)).toEqual(['agent.rejected', 'agent.restored']);
    expect(seen.every((e) => isOf(e, a.id))).toBe(true);
    expect(seen[0]).toMatchObject({ type: 'agent.rejected', reason: 'one' });
  });

  it('events follows the same stream as an async iterable, ending where `until` matches', async () => {
    const dir = folder('events');
    const a = await reviewing(writes(`${dir}/a.txt`, 'a\n'));
    const b = await reviewing(writes(`${dir}/b.txt`, 'b\n'));
    const seen: CairnEvent[] = [];
    let ended = false;
    const reading = (async () => {
      for await (const event of api().events({ agentId: a.id, until: (e) => e.type === 'agent.restored' })) seen.push(event);
      ended = true;
    })();
    // the iterable opens its stream on first use, so nudge the agents until it has seen one round
    for (let round = 0; !ended && round < 200; round++) {
      await api().reject(b.id, `noise ${round}`);
      await api().restore(b.id);
      await api().reject(a.id, `round ${round}`);
      await api().restore(a.id);
    }
    await reading;
    expect(ended).toBe(true);
    expect(seen.at(-1)).toMatchObject({ type: 'agent.restored', agentId: a.id });
    expect(seen.every((e) => isOf(e, a.id))).toBe(true);
    const types = seen.filter((e) => e.type.startsWith('agent.')).map((e) => e.type);
    expect(types).toEqual(types[0] === 'agent.rejected' ? ['agent.rejected', 'agent.restored'] : ['agent.restored']);
  });
}
