import type { AgentInfo } from './agent-info.js';
import type { CheckResultInfo } from './check-results.js';
import type { NonEmpty } from './conflict-outcome.js';

/** One overlapping region of a conflict: the human's lines, the base's, the agent's. */
export interface ConflictHunkInfo {
  ours: { start: number; lines: string[] };
  base: { start: number; lines: string[] };
  theirs: { start: number; lines: string[] };
}

/** A path an accept left alone, and why. */
export interface ConflictInfo {
  path: string;
  /** `content`, `add-add`, `modify-delete`, `delete-modify`, `binary`, `type`, `not-empty`, or `changed-on-disk`. */
  reason: string;
  /** For `type` and `not-empty`, which `force` never overrides: what the path is now and what the agent proposes. */
  detail?: string;
  hunks: ConflictHunkInfo[];
}

/** Options of an accept. */
export interface AcceptOptions {
  paths?: readonly string[];
  force?: boolean;
  partial?: boolean;
}

/** How an applied path reached the working tree. */
export type AppliedHow = 'fast-forward' | 'merged' | 'already' | 'forced';

/**
 * The outcome of an accept: what reached the working tree, and the agent after it. It is `ok` exactly when
 * nothing conflicted; otherwise `conflicts` names every path left alone and why.
 */
export type AcceptOutcome =
  | { ok: true; applied: { path: string; how: AppliedHow }[]; conflicts: []; agent: AgentInfo }
  | { ok: false; applied: { path: string; how: AppliedHow }[]; conflicts: NonEmpty<ConflictInfo>; agent: AgentInfo };

/** Options of accepts queued in turn: those of one accept (`paths` only with one agent), and whether to go on past one that stops. */
export interface AcceptManyOptions extends AcceptOptions {
  /** Go on with the next accepts after one that did not go in (a conflict, failed checks, an error). */
  keepGoing?: boolean;
}

/**
 * What one accept of a queue came to: it went in (`accepted`); it stopped at a conflict (nothing written unless
 * `partial`), at automatic checks that did not pass, or at an error (`refused`, e.g. the agent is not
 * reviewing); or it was `left` queued, never tried, behind one that stopped.
 */
export type AcceptItem =
  | { id: string; status: 'accepted'; applied: { path: string; how: AppliedHow }[]; agent: AgentInfo }
  | { id: string; status: 'conflict'; applied: { path: string; how: AppliedHow }[]; conflicts: ConflictInfo[]; agent: AgentInfo }
  | { id: string; status: 'checks-failed'; message: string; checks: CheckResultInfo[] }
  | { id: string; status: 'refused'; code: string; message: string; hint?: string }
  | { id: string; status: 'left' };

/** Accepts queued in turn, each onto the tree the one before left: `ok` exactly when every one went in. */
export interface AcceptManyOutcome {
  ok: boolean;
  accepts: AcceptItem[];
}
