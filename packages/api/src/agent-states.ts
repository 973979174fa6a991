import { CairnError } from './errors.js';

/**
 * Where an agent is in its life. `do:reply` feedback moves `reviewing` back to `running`. A reviewer agent
 * proposes nothing: it ends `decided` (its decision written into the thread) or `failed`.
 */
export type AgentState = (typeof AGENT_STATES)[number];

/** Every state an agent can be in, in the order of its life. */
export const AGENT_STATES = ['queued', 'running', 'reviewing', 'accepted', 'rejected', 'failed', 'decided'] as const;

/** The states an agent rests in until a person or a reviewer acts: what a wait for an agent ends at. */
export const SETTLED_STATES: readonly AgentState[] = ['reviewing', 'accepted', 'rejected', 'failed', 'decided'];

/** States given by a caller, checked: an unknown one is `CAIRN_INVALID_ARGUMENT` naming the states there are. */
export function parseAgentStates(states: unknown): AgentState[] {
  const list: unknown[] = Array.isArray(states) ? states : [states];
  return list.map((state) => {
    const known = AGENT_STATES.find((s) => s === state);
    if (known === undefined)
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `unknown state ${JSON.stringify(state)} (one of ${AGENT_STATES.join(', ')})`);
    return known;
  });
}
