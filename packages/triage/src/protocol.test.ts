import { describe, expect, it } from 'vitest';
import { triage } from './decision.js';
import type { Actor, BranchName, Reason } from './names.js';
import { checkProtocol, type ProtocolContext } from './protocol.js';

const a = (s: string) => s as Actor;
const base: ProtocolContext = {
  author: a('pi'),
  reviewer: a('sigma'),
  branch: 'pi/proposal' as BranchName,
  approvals: [a('omega')],
  baseUpToDate: true,
};

describe('protocol rules', () => {
  it('valid-triage: a decision outside the vocabulary is denied; a valid one is allowed', () => {
    expect(checkProtocol({ type: 'merge' }, base)).toMatchObject({ allowed: false, rule: 'valid-triage' });
    expect(checkProtocol({ type: 'delete', reason: '' }, base)).toMatchObject({
      allowed: false,
      rule: 'valid-triage',
      reason: 'not a valid decision: reason is empty',
    });
    expect(checkProtocol(triage.defer('later' as Reason), base)).toEqual({ allowed: true, decision: triage.defer('later' as Reason) });
  });

  it('only-creator-deletes: the branch owner (its name prefix) may delete; others may not', () => {
    expect(checkProtocol(triage.delete('stale' as Reason), { ...base, reviewer: a('pi') })).toMatchObject({ allowed: true });
    expect(checkProtocol(triage.delete('stale' as Reason), base)).toEqual({
      allowed: false,
      rule: 'only-creator-deletes',
      reason: 'only pi, who created pi/proposal, may delete it; sigma may defer or delegate instead',
      violations: [
        { rule: 'only-creator-deletes', reason: 'only pi, who created pi/proposal, may delete it; sigma may defer or delegate instead' },
      ],
    });
    expect(checkProtocol(triage.delete('x' as Reason), { ...base, branchOwner: a('sigma') })).toMatchObject({ allowed: true });
    expect(checkProtocol(triage.delete('x' as Reason), { ...base, branch: 'plain' as BranchName, reviewer: a('pi') })).toMatchObject({
      allowed: true,
    });
  });

  it('merge-requires-approval: an approval from someone but the author is needed', () => {
    expect(checkProtocol(triage.merge(), base)).toMatchObject({ allowed: true });
    expect(checkProtocol(triage.merge(), { ...base, approvals: [] })).toMatchObject({
      allowed: false,
      rule: 'merge-requires-approval',
      reason: 'pi/proposal has no approval from anyone but its author',
    });
    expect(checkProtocol(triage.merge(), { ...base, approvals: [a('pi')] })).toMatchObject({
      allowed: false,
      rule: 'merge-requires-approval',
    });
  });

  it('merge-requires-rebase: the proposal must sit on the current base', () => {
    expect(checkProtocol(triage.merge(), { ...base, baseUpToDate: false })).toMatchObject({
      allowed: false,
      rule: 'merge-requires-rebase',
      reason: 'pi/proposal is not based on the current base; rebase it first',
    });
  });

  it('no-self-merge: the author cannot merge their own proposal', () => {
    expect(checkProtocol(triage.merge(), { ...base, reviewer: a('pi') })).toMatchObject({
      allowed: false,
      rule: 'no-self-merge',
      reason: 'pi wrote this proposal and cannot merge it',
    });
  });

  it('reports every broken rule, the first as the verdict', () => {
    const verdict = checkProtocol(triage.merge(), { ...base, reviewer: a('pi'), approvals: [], baseUpToDate: false });
    expect(verdict.allowed === false && verdict.violations.map((v) => v.rule)).toEqual([
      'no-self-merge',
      'merge-requires-approval',
      'merge-requires-rebase',
    ]);
  });

  it('replies, custom steps, deferrals and delegations need no approval', () => {
    for (const decision of [triage.reply('sigma/re' as BranchName), triage.defer('x' as Reason), triage.delegate(a('omega'))]) {
      expect(checkProtocol(decision, { ...base, approvals: [], baseUpToDate: false }).allowed).toBe(true);
    }
  });
});
