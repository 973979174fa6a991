import type { AgentState } from '../api/types.js';

/** The transitions an agent may make, and the operation that makes each. */
const LEGAL: Readonly<Record<AgentState, readonly AgentState[]>> = {
  queued: ['running', 'rejected', 'failed'],
  running: ['reviewing', 'failed', 'decided', 'queued'],
  reviewing: ['queued', 'running', 'accepted', 'rejected'],
  accepted: ['reviewing'],
  rejected: ['queued', 'reviewing', 'failed'],
  failed: ['rejected'],
  decided: [],
};

/** True when an agent in `from` may move to `to`. */
export function canTransition(from: AgentState, to: AgentState): boolean {
  return LEGAL[from].includes(to);
}

/** The states a user can act on with each verb, for error messages. */
export const VERB_STATES: Readonly<Record<string, readonly AgentState[]>> = {
  accept: ['reviewing'],
  undo: ['accepted', 'reviewing'],
  reject: ['queued', 'reviewing', 'failed'],
  restore: ['rejected'],
  reply: ['reviewing'],
  replay: ['reviewing', 'accepted', 'rejected', 'failed'],
};

export const TERMINAL_STATES: readonly AgentState[] = ['accepted', 'rejected', 'failed', 'decided'];

/** True for a state from which the agent will not move by itself. */
export function isSettled(state: AgentState): boolean {
  return state !== 'queued' && state !== 'running';
}
