import type { ConflictInfo } from './accept-outcomes.js';
import type { AgentState } from './agent-states.js';
import type { CheckResultInfo } from './check-results.js';
import type { InboxDiagnostic, InboxResult } from './inbox-types.js';
import type { ChangeInfo } from './proposal-changes.js';

interface Base {
  /** ISO 8601. */
  time: string;
}
interface AgentBase extends Base {
  agentId: string;
}

/** Everything the orchestrator reports; every surface renders these and nothing else. */
export type CairnEvent =
  | (AgentBase & { type: 'agent.queued'; task: string })
  /** `again`: the run before was interrupted (its process stopped) and rolled back; this one starts over. */
  | (AgentBase & { type: 'agent.started'; run: number; again?: true })
  | (AgentBase & { type: 'agent.generating'; model: string; round: number })
  | (AgentBase & { type: 'agent.repairing'; round: number; problem: string })
  | (AgentBase & { type: 'agent.tool-called'; tool: string; path?: string; pattern?: string; ok: boolean; message?: string })
  | (AgentBase & { type: 'agent.denied'; tool: string; effect: string; path?: string; reason: string })
  | (AgentBase & { type: 'agent.log'; message: string })
  | (AgentBase & { type: 'agent.submitted'; summary: string; changes: ChangeInfo[] })
  | (AgentBase & { type: 'agent.accepted'; applied: string[]; conflicts: ConflictInfo[]; state: AgentState })
  | (AgentBase & { type: 'agent.undone'; restored: string[] })
  | (AgentBase & { type: 'agent.rejected'; reason: string })
  | (AgentBase & { type: 'agent.restored' })
  | (AgentBase & { type: 'agent.replied'; feedback: string })
  | (AgentBase & { type: 'agent.failed'; code: string; reason: string })
  | (AgentBase & { type: 'agent.requeued'; reason: string })
  /** A queued agent no trusted worker takes (none connected): why, what to do, and whether it now runs on the coordinator. */
  | (AgentBase & { type: 'agent.waiting'; reason: string; hint: string; then: 'wait' | 'run-here' })
  | (AgentBase & { type: 'agent.decided'; reviews: string; decision: string; note: string; thread?: string })
  /**
   * An accept waits: for its `turn` behind `ahead` accepts queued before it, or for the automatic `checks` named
   * to run on the project as it is now (their results went stale when the tree moved).
   */
  | (AgentBase & { type: 'accept.waiting'; for: 'turn' | 'checks'; ahead?: number; checks?: string[] })
  | (AgentBase & { type: 'check.started'; name: string })
  | (AgentBase & { type: 'check.finished'; result: CheckResultInfo })
  | (Base & { type: 'inbox.received'; agentId: string; thread: string })
  | (Base & { type: 'inbox.processed'; agentId?: string; result: InboxResult })
  | (Base & { type: 'inbox.invalid'; agentId?: string; thread: string; diagnostics: InboxDiagnostic[] })
  | (Base & { type: 'sync.progress'; phase: 'scan' | 'import' | 'prune'; done: number; total: number; bytes: number })
  | (Base & { type: 'sync.changed'; paths: string[] })
  | (Base & { type: 'error'; agentId?: string; code: string; message: string });

/** The `type` of every event. */
export type CairnEventType = CairnEvent['type'];
