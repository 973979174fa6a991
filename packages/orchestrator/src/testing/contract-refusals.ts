import { expect, it } from 'vitest';
import { type ContractContext, writes } from './contract-context.js';

/** How every implementation refuses: an unknown id, a bad argument, a wrong state, a closed API. */
export function describeRefusals({ api, folder, reviewing, accepted, refuses, open }: ContractContext): void {
  it('an unknown id is CAIRN_NOT_FOUND, naming it, for every method that takes one', async () => {
    const missing = 'beef0';
    const calls: [string, () => Promise<unknown>][] = [
      ['agent', () => api().agent(missing)],
      ['changes', () => api().changes(missing)],
      ['diff', () => api().diff(missing)],
      ['proposed', () => api().proposed(missing, 'README.md')],
      ['proposal', () => api().proposal(missing, 'README.md')],
      ['accept', () => api().accept(missing)],
      ['undo', () => api().undo(missing)],
      ['reject', () => api().reject(missing)],
      ['restore', () => api().restore(missing)],
      ['reply', () => api().reply(missing, 'feedback')],
      ['replay', () => api().replay(missing)],
      ['review', () => api().review(missing)],
      ['journal', () => api().journal(missing)],
      ['history', () => api().history(missing)],
      ['wait', () => api().wait(missing)],
    ];
    for (const [method, call] of calls) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, method).toMatchObject({
        name: 'CairnError',
        code: 'CAIRN_NOT_FOUND',
        message: `no agent "${missing}" in this project`,
      });
    }
  });

  it('a bad argument is CAIRN_INVALID_ARGUMENT (CAIRN_INVALID_PATH for a path), and nothing is done', async () => {
    const dir = folder('arguments');
    const agent = await reviewing(writes(`${dir}/x.txt`, 'x\n'));
    const before = (await api().agents()).length;
    await refuses(api().spawn('   ', { code: 'await log(1);' }), 'CAIRN_INVALID_ARGUMENT', /a task is required/);
    await refuses(api().queue('empty program', { code: '  ' }), 'CAIRN_INVALID_ARGUMENT', /the program is empty/);
    await refuses(api().spawn('no time', { code: 'await log(1);', limits: { wallMs: 0 } }), 'CAIRN_INVALID_ARGUMENT', /wallMs limit/);
    await refuses(api().spawn('outside', { code: 'await log(1);', scope: ['../out'] }), 'CAIRN_INVALID_PATH');
    expect((await api().agents()).length).toBe(before);
    await refuses(api().agent(''), 'CAIRN_INVALID_ARGUMENT', /an agent id is required/);
    await refuses(api().diff(agent.id, ['../x']), 'CAIRN_INVALID_PATH');
    await refuses(api().proposal(agent.id, 'README.md'), 'CAIRN_INVALID_ARGUMENT', /does not change README\.md/);
    await refuses(api().accept(agent.id, { paths: [`${dir}/nowhere.txt`] }), 'CAIRN_INVALID_ARGUMENT', /has no change at/);
    await refuses(api().reply(agent.id, '  '), 'CAIRN_INVALID_ARGUMENT', /feedback/);
    await refuses(api().review(agent.id, { as: 'nobody' }), 'CAIRN_INVALID_ARGUMENT', /no reviewer "nobody"/);
    await refuses(api().collect(-1), 'CAIRN_INVALID_ARGUMENT', /non-negative/);
    await refuses(api().inboxLog('yesterday'), 'CAIRN_INVALID_ARGUMENT', /not a date/);
    await refuses(api().processInbox({ threads: ['../elsewhere.md'] }), 'CAIRN_INVALID_ARGUMENT', /not a thread file name/);
    expect(await api().agent(agent.id)).toMatchObject({ state: 'reviewing', runs: 1 });
  });

  it('a call the agent is in the wrong state for is CAIRN_INVALID_STATE, naming the state', async () => {
    const dir = folder('states');
    const done = await accepted(`${dir}/done.txt`);
    const pending = await reviewing(writes(`${dir}/open.txt`, 'open\n'));
    await refuses(api().accept(done.id), 'CAIRN_INVALID_STATE', /is accepted/);
    await refuses(api().reply(done.id, 'more'), 'CAIRN_INVALID_STATE', /is accepted/);
    await refuses(api().review(done.id), 'CAIRN_INVALID_STATE', /is accepted/);
    await refuses(api().reject(done.id), 'CAIRN_INVALID_STATE', /accepted/);
    await refuses(api().undo(pending.id), 'CAIRN_INVALID_STATE', /is reviewing/);
    await refuses(api().restore(pending.id), 'CAIRN_INVALID_STATE', /only a rejected agent can be restored/);
    expect((await api().agent(done.id)).state).toBe('accepted');
    expect((await api().agent(pending.id)).state).toBe('reviewing');
  });

  it('once closed, every call is CAIRN_CLOSED', async () => {
    const other = await open();
    try {
      await other.api.close();
      await refuses(other.api.agents(), 'CAIRN_CLOSED');
      await refuses(other.api.subscribe(), 'CAIRN_CLOSED');
    } finally {
      await other.close();
    }
  });
}
