import type { AgentFS } from '@cairn/agentfs';
import { createTables } from '@cairn/agentfs';
import type { CheckResultInfo, CheckStatus } from '@cairn/api';

/** One stored result: the public view, the run it came from, and the output kept. */
export interface StoredCheck {
  info: CheckResultInfo;
  /**
   * The run the result belongs to: the proposal's hash and a mark of the run (`sha256:… <uuid>`), so that a run
   * superseded by a later one of the same proposal (the working tree moved) cannot take its place.
   */
  runRef: string;
  output: Buffer;
}

const DDL = `
CREATE TABLE IF NOT EXISTS cairn_check_results (
  agent_id TEXT NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  proposal_ref TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  data TEXT NOT NULL,
  output BLOB NOT NULL,
  PRIMARY KEY (agent_id, name)
);
`;

interface Row {
  status: string;
  proposal_ref: string;
  updated_at: number;
  data: string;
  output: Buffer;
}

/**
 * Check results per agent and per check, in bin.db (`cairn_check_results`): a result belongs to the exact run
 * that made it, on the exact proposal (`proposal_ref`: the proposal's hash and the run's mark); a revision or a
 * move of the project marks it `stale`.
 */
export class CheckResultStore {
  private readonly statements;

  constructor(db: AgentFS['db']) {
    createTables(db, DDL);
    this.statements = {
      put: db.prepare(
        'INSERT OR REPLACE INTO cairn_check_results (agent_id, name, status, proposal_ref, updated_at, data, output) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      list: db.prepare('SELECT * FROM cairn_check_results WHERE agent_id = ? ORDER BY rowid'),
      get: db.prepare('SELECT * FROM cairn_check_results WHERE agent_id = ? AND name = ?'),
      stale: db.prepare("UPDATE cairn_check_results SET status = 'stale', updated_at = ? WHERE agent_id = ? AND status != 'stale'"),
      pendingStale: db.prepare("UPDATE cairn_check_results SET status = 'stale', updated_at = ? WHERE agent_id = ? AND status = 'pending'"),
      drop: db.prepare('DELETE FROM cairn_check_results WHERE agent_id = ? AND name = ?'),
      pending: db.prepare("SELECT DISTINCT agent_id FROM cairn_check_results WHERE status = 'pending'").pluck(),
      staleOnes: db.prepare("SELECT DISTINCT agent_id FROM cairn_check_results WHERE status = 'stale'").pluck(),
      agents: db.prepare('SELECT DISTINCT agent_id FROM cairn_check_results').pluck(),
    };
  }

  put(agentId: string, stored: StoredCheck, now: number): void {
    const { info } = stored;
    this.statements.put.run(agentId, info.name, info.status, stored.runRef, now, JSON.stringify(info), stored.output);
  }

  list(agentId: string): StoredCheck[] {
    return (this.statements.list.all(agentId) as Row[]).map(fromRow);
  }

  /** The agents with a stored result. */
  agentsWithResults(): string[] {
    return this.statements.agents.all() as string[];
  }

  /** The agents with a result still `pending`. */
  agentsPending(): string[] {
    return this.statements.pending.all() as string[];
  }

  /** The agents with a result `stale`. */
  agentsStale(): string[] {
    return this.statements.staleOnes.all() as string[];
  }

  get(agentId: string, name: string): StoredCheck | undefined {
    const row = this.statements.get.get(agentId, name) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** Marks every result of an agent stale (the proposal or the project moved); returns how many changed. */
  markStale(agentId: string, now: number): number {
    return this.statements.stale.run(now, agentId).changes;
  }

  /** Marks an agent's `pending` results stale (their run was stopped); returns how many changed. */
  markPendingStale(agentId: string, now: number): number {
    return this.statements.pendingStale.run(now, agentId).changes;
  }

  remove(agentId: string, name: string): void {
    this.statements.drop.run(agentId, name);
  }
}

function fromRow(row: Row): StoredCheck {
  const info = JSON.parse(row.data) as CheckResultInfo;
  info.status = row.status as CheckStatus;
  info.updatedAt = new Date(row.updated_at).toISOString();
  return { info, runRef: row.proposal_ref, output: Buffer.from(row.output) };
}
