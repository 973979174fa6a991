import type { AgentFS } from '@cairn/agentfs';
import { createTables } from '@cairn/agentfs';
import type { InboxOutcomeKind } from '@cairn/api';

type Database = AgentFS['db'];

/** What became of a decision; `moves` outcomes send the thread to `done/`, the others leave it in the inbox. */
export type DecisionOutcome = Exclude<InboxOutcomeKind, 'invalid'>;

/** A decision as the inbox keeps it, so each is carried out once, whoever processes the inbox and however often. */
export interface DecisionRow {
  key: string;
  thread: string;
  agentId: string;
  decision: string;
  actor: string;
  state: 'claimed' | 'done';
  /** `pid:token` of the process carrying it out, while claimed. */
  owner?: string;
  outcome?: DecisionOutcome;
  /** The audit log's Executed cell. */
  executed?: string;
  rule?: string;
  reason?: string;
  /** True when the thread goes to `done/`. */
  moves: boolean;
  logged: boolean;
  /** Whether this decision counts as an approval of the agent's proposal. */
  approval: boolean;
  /** The agent's state, runs and last change when the decision was claimed: how a rerun tells whether it took effect. */
  before?: { state: string; runs: number; updatedAt: number; claimedAt: number };
  at: number;
}

const DDL = `
CREATE TABLE IF NOT EXISTS cairn_inbox_decisions (
  key TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  state TEXT NOT NULL,
  at INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cairn_inbox_decisions_agent ON cairn_inbox_decisions (agent_id, state);
`;

/** Decisions in bin.db (`cairn_inbox_decisions`), claimed and completed in transactions shared by every process. */
export class DecisionStore {
  private readonly statements;

  constructor(private readonly db: Database) {
    createTables(db, DDL);
    this.statements = {
      get: db.prepare('SELECT data FROM cairn_inbox_decisions WHERE key = ?'),
      forAgent: db.prepare('SELECT data FROM cairn_inbox_decisions WHERE agent_id = ? ORDER BY at'),
      put: db.prepare('INSERT OR REPLACE INTO cairn_inbox_decisions (key, agent_id, state, at, data) VALUES (?, ?, ?, ?, ?)'),
    };
  }

  get(key: string): DecisionRow | undefined {
    const row = this.statements.get.get(key) as { data: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.data) as DecisionRow);
  }

  forAgent(agentId: string): DecisionRow[] {
    return (this.statements.forAgent.all(agentId) as { data: string }[]).map((row) => JSON.parse(row.data) as DecisionRow);
  }

  put(row: DecisionRow): void {
    this.statements.put.run(row.key, row.agentId, row.state, row.at, JSON.stringify(row));
  }

  /** Runs `fn` in an immediate transaction: the lock every process takes to claim, finish or log. */
  locked<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }
}
