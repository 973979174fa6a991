import { describe, expectTypeOf, it } from 'vitest';
import { type Triage, triage } from './decision.js';
import type { Actor, BranchName, Reason } from './names.js';
import { parseReason } from './names.js';

describe('decision types', () => {
  it('accepts only the cases of the vocabulary, each with its branded payload', () => {
    const reason = parseReason('stale');
    if (reason.ok) expectTypeOf(triage.delete(reason.value)).toEqualTypeOf<Triage>();

    // @ts-expect-error a plain string is not a Reason: it must be parsed first
    triage.delete('stale');
    // @ts-expect-error a Reason is not an Actor
    triage.delegate('x' as Reason);
    // @ts-expect-error a delete needs its reason
    const noReason: Triage = { type: 'delete' };
    // @ts-expect-error "merge" is an action of "do", not a decision of its own
    const bareMerge: Triage = { type: 'merge' };
    // @ts-expect-error no such action
    const rebase: Triage = { type: 'do', action: { type: 'rebase' } };
    // @ts-expect-error a reply names a BranchName, not an Actor
    const wrongPayload: Triage = { type: 'do', action: { type: 'reply', branch: 'pi' as Actor } };
    void [noReason, bareMerge, rebase, wrongPayload];

    const ok: Triage = { type: 'do', action: { type: 'reply', branch: 'sigma/x' as BranchName } };
    expectTypeOf(ok).toMatchTypeOf<Triage>();
  });

  it('narrows on type', () => {
    const describeDecision = (d: Triage): string => {
      switch (d.type) {
        case 'delete':
        case 'defer':
          expectTypeOf(d.reason).toEqualTypeOf<Reason>();
          return d.reason;
        case 'delegate':
          return d.actor;
        case 'do':
          return d.action.type;
      }
    };
    expectTypeOf(describeDecision).returns.toBeString();
  });
});
