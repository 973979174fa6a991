import type { AgentInfo, AgentState, CairnEvent } from '@cairn/api';
import { CairnError, SETTLED_STATES } from '@cairn/api';
import type { EventBus } from '../events/event-bus.js';
import { toAgentInfo } from './agent-info.js';
import type { AgentStore } from './agent-store.js';

/** Progress events never change an agent's state: only the others are worth a look at its record. */
const PROGRESS = new Set<CairnEvent['type']>(['agent.tool-called', 'agent.denied', 'agent.log', 'agent.generating', 'agent.repairing']);

/** Resolves when the agent is in one of `states`, looking again at each of its lifecycle events. */
export async function waitForAgent(
  store: AgentStore,
  bus: EventBus,
  id: string,
  states: readonly AgentState[] = SETTLED_STATES,
): Promise<AgentInfo> {
  const stream = bus.stream((event) => 'agentId' in event && event.agentId === id && !PROGRESS.has(event.type));
  try {
    for (;;) {
      const record = store.require(id);
      if (states.includes(record.state)) return toAgentInfo(record);
      const next = await stream.next();
      if (next.done === true) throw new CairnError('CAIRN_CLOSED', 'the project was closed while waiting for the agent');
    }
  } finally {
    await stream.return?.();
  }
}
