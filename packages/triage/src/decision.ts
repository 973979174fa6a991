import type { Actor, BranchName, Description, Reason } from './names.js';

/** What "do" does: merge the proposal, reply on a branch, or a custom step. */
export type Action =
  | { readonly type: 'merge' }
  | { readonly type: 'reply'; readonly branch: BranchName }
  | { readonly type: 'custom'; readonly description: Description };

/**
 * A review decision: `Delete(reason) | Defer(reason) | Delegate(actor) | Do(Merge | Reply(branch) | Custom(description))`.
 * If it is not in this type, no reviewer can decide it.
 */
export type Triage =
  | { readonly type: 'delete'; readonly reason: Reason }
  | { readonly type: 'defer'; readonly reason: Reason }
  | { readonly type: 'delegate'; readonly actor: Actor }
  | { readonly type: 'do'; readonly action: Action };

/** Constructors for decisions, one per case of the type. */
export const triage = {
  delete: (reason: Reason): Triage => ({ type: 'delete', reason }),
  defer: (reason: Reason): Triage => ({ type: 'defer', reason }),
  delegate: (actor: Actor): Triage => ({ type: 'delegate', actor }),
  merge: (): Triage => ({ type: 'do', action: { type: 'merge' } }),
  reply: (branch: BranchName): Triage => ({ type: 'do', action: { type: 'reply', branch } }),
  custom: (description: Description): Triage => ({ type: 'do', action: { type: 'custom', description } }),
} as const;
