import type { InboxOutcomeKind } from '@cairn/api';

/** Outcomes that leave a decision not carried out: a person has to look again. */
const NOT_CARRIED_OUT: ReadonlySet<InboxOutcomeKind> = new Set(['refused', 'failed', 'invalid', 'stale', 'unhandled']);

/** True when a decision's outcome is what the decision asked for (a deferral is carried out by staying). */
export function decisionCarriedOut(outcome: InboxOutcomeKind): boolean {
  return !NOT_CARRIED_OUT.has(outcome);
}
