import type { AgentInfo } from './agent-info.js';
import type { NonEmpty } from './conflict-outcome.js';

/** A path an undo left alone: the human changed it after the accept. */
export interface UndoConflictInfo {
  path: string;
  reason: string;
}

/** The outcome of an undo: what was restored; `ok` exactly when nothing the human changed since was in the way. */
export type UndoOutcome =
  | { ok: true; restored: string[]; conflicts: []; agent: AgentInfo }
  | { ok: false; restored: string[]; conflicts: NonEmpty<UndoConflictInfo>; agent: AgentInfo };
