import type { AgentState } from './agent-states.js';

/** What `cairn repair` found and did. */
export interface RepairOutcome {
  /** bin.db as repair found it. */
  binDb: 'sound' | 'damaged' | 'missing';
  /** Where the damaged bin.db was moved (kept, never deleted). */
  movedAside?: string;
  /** Agents given a record again, and where it came from (the old bin.db, or the agent's own database). */
  recovered: { id: string; state: AgentState; task: string; from: 'bin.db' | 'agent database' }[];
  /** Agent databases whose record could only be partly rebuilt, or not at all, and why. */
  unrecovered: { path: string; why: string }[];
  /** What was lost with the damaged bin.db, in words. */
  lost: string[];
}
