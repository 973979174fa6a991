import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type ContractContext, edits, ISO_TIME, isOf, MATH, readUntil, writes } from './contract-context.js';

/** The contract of the calls that run agents and carry out their proposals: sync, spawn, queue, accept, undo, reject, restore, collect, reply, replay. */
export function describeAgentCalls({ api, subject, folder, reviewing, given, refuses }: ContractContext): void {
  it('sync imports the working tree; a second sync finds nothing new; agents read what was imported', async () => {
    expect(api().root).toBe(subject().temp.root);
    const dir = folder('sync');
    subject().temp.write(`${dir}/new.txt`, 'new\n');
    const first = await api().sync();
    // the sample's six files and the new one; a daemon's watcher may have imported the new one already
    expect(first).toMatchObject({ files: 7, updated: 0, removed: 0 });
    expect([6, 7]).toContain(first.unchanged);
    const again = await api().sync();
    expect(again).toMatchObject({ files: 7, added: 0, updated: 0, removed: 0, unchanged: 7 });
    const copy = await reviewing(`await write_file('${dir}/copy.txt', await read_file('${dir}/new.txt'));`);
    expect(await api().proposed(copy.id, `${dir}/copy.txt`)).toBe('new\n');
  });

  it('skipped lists what the import leaves out, and forgets it once it is gone', async () => {
    const dir = folder('skipped');
    subject().temp.write(`${dir}/kept.txt`, 'kept\n');
    const odd = Buffer.concat([Buffer.from(join(subject().temp.root, dir, 'caf')), Buffer.from([0xe9]), Buffer.from('.txt')]);
    writeFileSync(odd, 'latin-1 name\n');
    await api().sync();
    expect(await api().skipped()).toContainEqual({ path: `${dir}/caf\\xe9.txt`, reason: 'the name is not UTF-8' });
    rmSync(odd);
    await api().sync();
    expect((await api().skipped()).filter((entry) => entry.path.startsWith(`${dir}/`))).toEqual([]);
  });

  it('spawn creates an agent that runs, reports its events and is read back the same by every reader', async () => {
    const dir = folder('spawn');
    const path = `${dir}/hello.txt`;
    // the new folder is a change of its own
    const added = [
      { path: dir, status: 'added', kind: 'dir' },
      { path, status: 'added', kind: 'file' },
    ];
    const stream = await api().subscribe();
    const spawned = await api().spawn('add a greeting', { code: writes(path, 'hello\n', 'added hello') });
    expect(spawned).toMatchObject({ task: 'add a greeting', origin: 'code', kind: 'code', lang: 'js', runs: 0 });
    // a free slot may take it at once
    expect(['queued', 'running']).toContain(spawned.state);
    expect(spawned.id).toMatch(/^[0-9a-f]{4,}$/);
    expect(spawned.createdAt).toMatch(ISO_TIME);
    const seen = await readUntil(stream, (e) => isOf(e, spawned.id) && (e.type === 'agent.submitted' || e.type === 'agent.failed'));
    const own = seen.filter((e) => isOf(e, spawned.id));
    expect(own[0]).toMatchObject({ type: 'agent.queued', task: 'add a greeting' });
    expect(own).toContainEqual(expect.objectContaining({ type: 'agent.started', run: 1 }));
    expect(own).toContainEqual(expect.objectContaining({ type: 'agent.tool-called', tool: 'write_file', path, ok: true }));
    expect(own.at(-1)).toMatchObject({
      type: 'agent.submitted',
      summary: 'added hello',
      changes: added,
    });
    for (const event of seen) expect(event.time).toMatch(ISO_TIME);

    const done = await api().wait(spawned.id);
    expect(done).toMatchObject({ id: spawned.id, state: 'reviewing', summary: 'added hello', runs: 1, createdAt: spawned.createdAt });
    expect(done.changes).toEqual(added);
    expect(await api().agent(spawned.id)).toEqual(done);
    expect((await api().agents()).find((a) => a.id === spawned.id)).toEqual(done);
    const reviewingOnes = await api().agents({ state: 'reviewing' });
    expect(reviewingOnes.map((a) => a.id)).toContain(spawned.id);
    expect(reviewingOnes.every((a) => a.state === 'reviewing')).toBe(true);
    expect((await api().agents({ state: ['accepted', 'failed'] })).map((a) => a.id)).not.toContain(spawned.id);
    expect(await api().agents({ state: [] })).toEqual([]);

    expect(await api().changes(spawned.id)).toEqual(added);
    const diff = await api().diff(spawned.id);
    expect(diff).toContain(`+++ b/${path}`);
    expect(diff).toContain('+hello');
    expect(await api().diff(spawned.id, [path])).toBe(diff);
    expect(await api().proposed(spawned.id, path)).toBe('hello\n');
    expect(await api().proposal(spawned.id, path)).toEqual({ path, status: 'added', base: null, proposed: 'hello\n', binary: false });

    const journal = await api().journal(spawned.id);
    expect(journal).toMatchObject({ agentId: spawned.id, verified: true });
    expect(journal.broken).toBeUndefined();
    expect(journal.entries).toBeGreaterThanOrEqual(journal.rows.length);
    expect(journal.rows).toContainEqual(expect.objectContaining({ effect: 'fs.write', path }));

    const history = await api().history(spawned.id);
    // lifecycle events are kept (tool calls and log lines are the journal's); the thread is written before the submit
    expect(history.map((e) => e.type)).toEqual(['agent.queued', 'agent.started', 'inbox.received', 'agent.submitted']);
    expect(history.every((e) => isOf(e, spawned.id))).toBe(true);
    expect((await api().history(spawned.id, 1)).map((e) => e.type)).toEqual(['agent.submitted']);
  });

  it('queue creates an agent at the back of the queue, which runs like any other', async () => {
    const path = `${folder('queue')}/queued.txt`;
    const queued = await api().queue('a queued task', { code: writes(path, 'queued\n') });
    expect(queued).toMatchObject({ task: 'a queued task', origin: 'code', runs: 0 });
    expect(['queued', 'running']).toContain(queued.state);
    const done = await api().wait(queued.id);
    expect(done.state).toBe('reviewing');
    expect(await api().proposed(queued.id, path)).toBe('queued\n');
  });

  it('accept merges a clean proposal into the working tree; undo brings the file back', async () => {
    const path = `${folder('accept')}/a.txt`;
    await given({ [path]: 'before\n' });
    const agent = await reviewing(edits(path, 'before', 'after'));
    const outcome = await api().accept(agent.id);
    if (!outcome.ok) throw new Error(`a clean accept conflicted: ${JSON.stringify(outcome.conflicts)}`);
    expect(outcome.conflicts).toEqual([]);
    expect(outcome.applied).toEqual([{ path, how: 'fast-forward' }]);
    expect(outcome.agent).toMatchObject({ id: agent.id, state: 'accepted' });
    expect(subject().temp.read(path)).toBe('after\n');
    expect((await api().agent(agent.id)).state).toBe('accepted');

    const undone = await api().undo(agent.id);
    if (!undone.ok) throw new Error(`a clean undo conflicted: ${JSON.stringify(undone.conflicts)}`);
    expect(undone.restored).toEqual([path]);
    expect(undone.agent).toMatchObject({ id: agent.id, state: 'reviewing' });
    expect(subject().temp.read(path)).toBe('before\n');
    expect(await api().changes(agent.id)).toEqual([{ path, status: 'modified', kind: 'file' }]);
  });

  it('accept reports conflicts with their hunks and applies nothing; force takes the agent side; undo reports a later edit', async () => {
    const path = `${folder('conflict')}/math.js`;
    await given({ [path]: MATH });
    const agent = await reviewing(
      `const t = await read_file('${path}');\nawait write_file('${path}', t.replace('return a + b;', 'return a + b; // sum').replace('return a - b;', 'return a - b; // difference'));\n`,
    );
    const human = MATH.replace('return a - b;', 'return b - a;');
    subject().temp.write(path, human);
    const outcome = await api().accept(agent.id);
    if (outcome.ok) throw new Error('an overlapping edit was accepted without a conflict');
    const [conflict] = outcome.conflicts;
    expect(conflict).toMatchObject({ path, reason: 'content' });
    expect(conflict.hunks[0]?.ours.lines).toEqual(['  return b - a;']);
    expect(conflict.hunks[0]?.theirs.lines).toEqual(['  return a - b; // difference']);
    expect(outcome.applied).toEqual([]);
    expect(outcome.agent).toMatchObject({ id: agent.id, state: 'reviewing' });
    expect(subject().temp.read(path)).toBe(human);

    const forced = await api().accept(agent.id, { force: true });
    expect(forced.ok).toBe(true);
    expect(forced.applied).toEqual([{ path, how: 'forced' }]);
    expect(subject().temp.read(path)).toContain('return a - b; // difference');

    subject().temp.write(path, 'changed after the accept\n');
    const undone = await api().undo(agent.id);
    if (undone.ok) throw new Error('an undo overwrote a file changed since the accept');
    expect(undone.conflicts).toEqual([{ path, reason: expect.any(String) }]);
    expect(undone.restored).toEqual([]);
    expect(subject().temp.read(path)).toBe('changed after the accept\n');
    const forcedUndo = await api().undo(agent.id, { force: true });
    expect(forcedUndo).toMatchObject({ ok: true, restored: [path], conflicts: [] });
    expect(subject().temp.read(path)).toBe(human);
  });

  it('acceptMany accepts in turn, each onto the tree the one before left; the first that does not go in stops the rest', async () => {
    const dir = folder('many');
    await given({ [`${dir}/list.txt`]: 'top\nmiddle\nbottom\n' });
    const a = await reviewing(edits(`${dir}/list.txt`, 'top', 'TOP'));
    const b = await reviewing(edits(`${dir}/list.txt`, 'bottom', 'BOTTOM'));
    const clash = await reviewing(edits(`${dir}/list.txt`, 'top', 'Top'));
    const c = await reviewing(writes(`${dir}/c.txt`, 'c\n'));
    const outcome = await api().acceptMany([a.id, b.id, clash.id, c.id]);
    expect(outcome.ok).toBe(false);
    expect(outcome.accepts.map((item) => [item.id, item.status])).toEqual([
      [a.id, 'accepted'],
      [b.id, 'accepted'],
      [clash.id, 'conflict'],
      [c.id, 'left'],
    ]);
    expect(subject().temp.read(`${dir}/list.txt`)).toBe('TOP\nmiddle\nBOTTOM\n');
    expect((await api().agent(c.id)).state).toBe('reviewing');
    const rest = await api().acceptMany([clash.id, c.id, 'zzzz'], { keepGoing: true });
    expect(rest.accepts).toEqual([
      expect.objectContaining({ id: clash.id, status: 'conflict' }),
      expect.objectContaining({ id: c.id, status: 'accepted' }),
      expect.objectContaining({ id: 'zzzz', status: 'refused', code: 'CAIRN_NOT_FOUND' }),
    ]);
    await expect(api().acceptMany([a.id, b.id], { paths: ['x'] })).rejects.toMatchObject({ code: 'CAIRN_INVALID_ARGUMENT' });
  });

  it('reject retires a proposal, restore brings it back, collect deletes retired overlays for good', async () => {
    const dir = folder('reject');
    const a = await reviewing(writes(`${dir}/a.txt`, 'a\n'));
    const b = await reviewing(writes(`${dir}/b.txt`, 'b\n'));
    const rejected = await api().reject(a.id, 'not now');
    expect(rejected).toMatchObject({ id: a.id, state: 'rejected', reason: 'not now' });
    const restored = await api().restore(a.id);
    expect(restored).toMatchObject({ id: a.id, state: 'reviewing' });
    expect(await api().proposed(a.id, `${dir}/a.txt`)).toBe('a\n');
    expect((await api().reject(a.id)).state).toBe('rejected');
    const collected = await api().collect(0);
    expect(collected.collected).toContainEqual({ agentId: a.id, retiredAt: expect.stringMatching(ISO_TIME) });
    expect(collected.collected.map((c) => c.agentId)).not.toContain(b.id);
    expect((await api().agent(b.id)).state).toBe('reviewing');
    await refuses(api().restore(a.id), 'CAIRN_INVALID_STATE');
  });

  it('reply sends a reviewing agent back to work in the same overlay', async () => {
    const path = `${folder('reply')}/r.txt`;
    const agent = await reviewing(writes(path, 'first\n'));
    const replied = await api().reply(agent.id, 'also say goodbye');
    expect(replied.id).toBe(agent.id);
    expect(['queued', 'running']).toContain(replied.state);
    const revised = await api().wait(agent.id);
    expect(revised).toMatchObject({ state: 'reviewing', runs: 2 });
    expect(await api().history(agent.id, 50)).toContainEqual(
      expect.objectContaining({ type: 'agent.replied', agentId: agent.id, feedback: 'also say goodbye' }),
    );
  });

  it('replay re-runs an agent from its journal and reproduces its changes', async () => {
    const agent = await reviewing(writes(`${folder('replay')}/p.txt`, 'replayed\n'));
    const outcome = await api().replay(agent.id);
    if (!outcome.ok) throw new Error(`the replay diverged: ${JSON.stringify(outcome.divergence)}`);
    expect(outcome.runs).toBe(1);
    expect(outcome.entries).toBe((await api().journal(agent.id)).entries);
    expect(outcome.changesHash).toBe(outcome.recordedChangesHash);
    expect(outcome.changesHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
}
