import { describe, expect, it } from 'vitest';
import { type Triage, triage } from './decision.js';
import { type InboxItem, planInbox } from './inbox.js';
import type { Actor, BranchName, Description, Reason } from './names.js';
import type { Thread } from './thread.js';
import type { Timestamp } from './timestamp.js';

function item(name: string, decision: Triage | undefined, extra: Partial<InboxItem> = {}, reviewer = 'sigma'): InboxItem {
  const thread: Thread = {
    title: `pi/${name}`,
    from: 'pi' as Actor,
    branch: `pi/${name}` as BranchName,
    received: '2026-02-05T14:00Z' as Timestamp,
    body: '',
  };
  if (decision) thread.triage = { decision, actor: reviewer as Actor, timestamp: '2026-02-05T15:30Z' as Timestamp };
  return { name: `20260205-pi-${name}.md`, thread, ...extra };
}

describe('inbox planning', () => {
  it('turns each triaged thread into executor steps, a move to done and a log entry, in name order', () => {
    const actions = planInbox([
      item('b-merge', triage.merge(), { approvals: ['omega' as Actor], baseUpToDate: true }),
      item('a-untriaged', undefined),
      item('c-reply', triage.reply('sigma/answer' as BranchName)),
      item('d-delete', triage.delete('stale' as Reason), {}, 'pi'),
      item('e-defer', triage.defer('after release' as Reason)),
      item('f-delegate', triage.delegate('omega' as Actor)),
      item('g-custom', triage.custom('run the e2e suite' as Description)),
    ]);
    const log = (source: string, decision: string, executed: string) => ({
      type: 'log',
      entry: { time: '15:30', source: `pi/${source}`, decision, executed },
    });
    expect(actions).toEqual([
      { type: 'merge', thread: '20260205-pi-b-merge.md', branch: 'pi/b-merge' },
      { type: 'move-to-done', thread: '20260205-pi-b-merge.md' },
      log('b-merge', 'do:merge', '✓ merged'),
      { type: 'reply', thread: '20260205-pi-c-reply.md', to: 'pi', branch: 'sigma/answer' },
      { type: 'move-to-done', thread: '20260205-pi-c-reply.md' },
      log('c-reply', 'do:reply:sigma/answer', '✓ replied on sigma/answer'),
      { type: 'delete-branch', thread: '20260205-pi-d-delete.md', branch: 'pi/d-delete' },
      { type: 'move-to-done', thread: '20260205-pi-d-delete.md' },
      log('d-delete', 'delete:stale', '✓ deleted'),
      log('e-defer', 'defer:after release', '— deferred'),
      { type: 'notify', thread: '20260205-pi-f-delegate.md', actor: 'omega' },
      { type: 'move-to-done', thread: '20260205-pi-f-delegate.md' },
      log('f-delegate', 'delegate:omega', '✓ delegated to omega'),
      { type: 'custom', thread: '20260205-pi-g-custom.md', description: 'run the e2e suite' },
      { type: 'move-to-done', thread: '20260205-pi-g-custom.md' },
      log('g-custom', 'do:custom:run the e2e suite', '✓ custom'),
    ]);
  });

  it('a decision the protocol denies is only logged, and the thread stays', () => {
    expect(planInbox([item('x', triage.merge())])).toEqual([
      { type: 'log', entry: { time: '15:30', source: 'pi/x', decision: 'do:merge', executed: '✗ denied: merge-requires-approval' } },
    ]);
    expect(planInbox([item('y', triage.delete('mine now' as Reason))])).toEqual([
      { type: 'log', entry: { time: '15:30', source: 'pi/y', decision: 'delete:mine now', executed: '✗ denied: only-creator-deletes' } },
    ]);
  });
});
