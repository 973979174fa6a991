import type { AgentState } from '@cairn/api';

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
