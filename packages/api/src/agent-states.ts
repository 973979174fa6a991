import { CairnError } from './errors.js';
import { AGENT_STATES, type AgentState } from './types.js';

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
