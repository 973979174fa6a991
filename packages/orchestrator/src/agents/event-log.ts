import type { CairnEvent } from '@cairn/api';
import type { AgentStore } from './agent-store.js';

/** Events too many and too small to keep per agent (the journal holds them): tool calls and log lines. */
const NOT_KEPT = new Set<CairnEvent['type']>(['agent.tool-called', 'agent.log']);

/**
 * A listener that keeps every agent's lifecycle events in bin.db, for `cairn status` and `history`. A store
 * that is closing only loses its copy: live listeners still get the event.
 */
export function keepAgentEvents(store: AgentStore): (event: CairnEvent) => void {
  return (event) => {
    if (!('agentId' in event) || event.agentId === undefined || NOT_KEPT.has(event.type) || store.hasKept(event)) return;
    try {
      store.recordEvent(event.agentId, Date.parse(event.time), event);
    } catch {
      // see above
    }
  };
}
