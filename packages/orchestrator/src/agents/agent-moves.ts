import type { AgentState } from '@cairn/api';

/** The moves an agent may make, from each state (SPEC §6.2 draws the same table; a test compares them). */
export const AGENT_MOVES: Readonly<Record<AgentState, readonly AgentState[]>> = {
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
  return AGENT_MOVES[from].includes(to);
}
