import type { Triage } from './decision.js';
import { type Actor, type BranchName, ownerOfBranch } from './names.js';
import { checkTriage } from './triage-text.js';

/** The rules a decision must pass before the orchestrator carries it out. */
export type ProtocolRule = 'valid-triage' | 'only-creator-deletes' | 'no-self-merge' | 'merge-requires-approval' | 'merge-requires-rebase';

/** What the rules look at. */
export interface ProtocolContext {
  /** Who wrote the proposal. */
  author: Actor;
  /** Who made the decision. */
  reviewer: Actor;
  branch: BranchName;
  /** Who created the branch; by default the `<owner>/` prefix of its name, else the author. */
  branchOwner?: Actor;
  /** Who approved the proposal; the author's own approval does not count. */
  approvals: readonly Actor[];
  /** Whether the proposal is based on the current base (rebased). */
  baseUpToDate: boolean;
}

/** One broken rule and why. */
export interface ProtocolViolation {
  rule: ProtocolRule;
  reason: string;
}

/** Allowed, or denied with the first broken rule (and every broken rule in `violations`). */
export type ProtocolVerdict =
  | { allowed: true; decision: Triage }
  | ({ allowed: false; violations: ProtocolViolation[] } & ProtocolViolation);

/**
 * Checks a decision (possibly from an untyped source) against the protocol: only the branch's creator
 * deletes it; a merge needs an approval from someone other than the author, a rebased proposal, and a
 * reviewer who is not the author.
 */
export function checkProtocol(decision: unknown, context: ProtocolContext): ProtocolVerdict {
  const checked = checkTriage(decision);
  if (!checked.ok) return deny([{ rule: 'valid-triage', reason: `not a valid decision: ${checked.error.message}` }]);
  const valid = checked.value;
  const violations: ProtocolViolation[] = [];
  if (valid.type === 'delete') {
    const owner = context.branchOwner ?? ownerOfBranch(context.branch) ?? context.author;
    if (context.reviewer !== owner) {
      violations.push({
        rule: 'only-creator-deletes',
        reason: `only ${owner}, who created ${context.branch}, may delete it; ${context.reviewer} may defer or delegate instead`,
      });
    }
  }
  if (valid.type === 'do' && valid.action.type === 'merge') {
    if (context.reviewer === context.author) {
      violations.push({ rule: 'no-self-merge', reason: `${context.reviewer} wrote this proposal and cannot merge it` });
    }
    if (!context.approvals.some((approver) => approver !== context.author)) {
      violations.push({ rule: 'merge-requires-approval', reason: `${context.branch} has no approval from anyone but its author` });
    }
    if (!context.baseUpToDate) {
      violations.push({ rule: 'merge-requires-rebase', reason: `${context.branch} is not based on the current base; rebase it first` });
    }
  }
  return violations.length === 0 ? { allowed: true, decision: valid } : deny(violations);
}

function deny(violations: ProtocolViolation[]): ProtocolVerdict {
  return { allowed: false, rule: violations[0]!.rule, reason: violations[0]!.reason, violations };
}
