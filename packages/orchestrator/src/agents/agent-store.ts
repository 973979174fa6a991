import { AgentFS, createTables } from '@cairn/agentfs';
import type { AgentFailure, AgentInfo, AgentSpec, AgentState, CairnEvent, ChangeInfo } from '@cairn/api';
import { CairnError } from '@cairn/api';
import { newAgentId } from './agent-id.js';
import { canTransition } from './agent-moves.js';

/** What an agent may spend, and has spent. */
export type Spent = AgentInfo['spent'];

/** An agent as bin.db keeps it: its spec, and where it stands. Times are Unix milliseconds. */
export interface AgentRecord extends AgentSpec {
  id: string;
  state: AgentState;
  /** Order in the queue: spawn goes before every queued agent, queue after. */
  queueSeq: number;
  createdAt: number;
  updatedAt: number;
  /** `pid:token` of the process running the agent, while it runs. */
  owner?: string;
  /** Set when a queue (a daemon) runs the agent: it runs again if that process dies before the agent ends. */
  rerunOnInterrupt?: boolean;
  /** `cairn run ID --sync` from another process while an exec agent's command runs, and its owner's answer. */
  syncRequest?: { token: string; answer?: string };
  /** Set by another process that wants the agent stopped (a reject) while this record's owner runs it. */
  stopRequested?: string;
  /** How many times the process running the agent died before the agent ended. */
  interruptions?: number;
  summary?: string;
  changes?: ChangeInfo[];
  failure?: AgentFailure;
  reason?: string;
  runs: number;
  spent: Spent;
  /** The journal's head when the agent last stopped running: a shorter or different journal is refused. */
  journalHead?: { hash: string; length: number };
  /** The ledger row of the retired overlay, while rejected. */
  ledgerId?: number;
  /** The state a rejected agent returns to on restore. */
  rejectedFrom?: AgentState;
  /** Feedback waiting for the next revision (`do:reply`). */
  feedback?: string;
  /** The person who spawned the agent: the owner of its proposal in the review protocol. */
  createdBy?: string;
  /** `reviewer` for an agent that reviews another's proposal and may only read and decide. */
  role?: 'author' | 'reviewer';
  /** The agent a reviewer reviews. */
  reviews?: string;
  /** The actor a reviewer decides as: the name the project gives it, else its id. */
  actor?: string;
  /** A reviewer's decision, as written into the thread. */
  decision?: { decision: string; note: string; thread?: string };
  /** The worker (a machine fed by the coordinator's queue) that runs or ran the agent. */
  worker?: string;
  /** The worker's enrolled Ed25519 public key (hex) its receipts are verified with, once its result was accepted. */
  workerKey?: string;
  /**
   * The agent's job on the coordinator's queue, while it waits there (`queued`) or runs on a worker (`running`),
   * kept to resume after a restart: its attempt, how many of the attempts before it were lost from the queue
   * (none when absent), when it was last put on the queue (Unix ms), and the worker whose signed claim of the
   * job's current run the coordinator verified.
   */
  remoteJob?: { id: string; attempt: number; lost?: number; queuedAt?: number; claim?: { run: number; worker: string } };
  /** The sha256 of the capability token a worker runs the agent under: its journal starts from it. */
  tokenHash?: string;
  /** The governance (JSON text) the agent starts under, when a coordinator's job fixed it (see `startingGovernance`). */
  governance?: string;
}

/** The fields of a record that may change after creation. */
export type AgentPatch = {
  [K in Exclude<keyof AgentRecord, 'id' | 'task' | 'createdAt' | 'origin' | 'lang'>]?: AgentRecord[K] | undefined;
};

const DDL = `
CREATE TABLE IF NOT EXISTS cairn_agents (
  id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  queue_seq INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cairn_agents_state ON cairn_agents (state, queue_seq);
CREATE INDEX IF NOT EXISTS cairn_agents_updated ON cairn_agents (updated_at);
CREATE TABLE IF NOT EXISTS cairn_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  agent_id TEXT,
  time INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS cairn_events_agent ON cairn_events (agent_id, seq);
`;

interface Row {
  id: string;
  state: string;
  queue_seq: number;
  created_at: number;
  updated_at: number;
  data: string;
}

/**
 * Agent records in bin.db (`cairn_agents`, beside the ledger), with every state change made as a
 * compare-and-set so two processes (a daemon and a CLI) never both move one agent.
 */
export class AgentStore {
  private readonly store: AgentFS;
  private readonly clock: () => number;
  private readonly statements;
  /** Events written in the transaction of the change they report, which the event log must not write again. */
  private readonly kept = new WeakSet<CairnEvent>();

  constructor(binPath: string, clock: () => number) {
    this.store = AgentFS.open(binPath, { durability: 'full', clock });
    this.clock = clock;
    const db = this.store.db;
    createTables(db, DDL);
    this.statements = {
      insert: db.prepare('INSERT INTO cairn_agents (id, state, queue_seq, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?)'),
      get: db.prepare('SELECT * FROM cairn_agents WHERE id = ?'),
      all: db.prepare('SELECT * FROM cairn_agents ORDER BY created_at, id'),
      byState: db.prepare('SELECT * FROM cairn_agents WHERE state = ? ORDER BY queue_seq, created_at'),
      update: db.prepare('UPDATE cairn_agents SET state = ?, queue_seq = ?, updated_at = ?, data = ? WHERE id = ? AND state = ?'),
      changedSince: db.prepare('SELECT * FROM cairn_agents WHERE updated_at >= ?'),
      count: db.prepare('SELECT count(*) FROM cairn_agents').pluck(),
      seqBounds: db.prepare('SELECT MIN(queue_seq) AS low, MAX(queue_seq) AS high FROM cairn_agents'),
      exists: db.prepare('SELECT 1 FROM cairn_agents WHERE id = ?'),
      addEvent: db.prepare('INSERT INTO cairn_events (agent_id, time, body) VALUES (?, ?, ?)'),
      events: db.prepare('SELECT body FROM cairn_events WHERE agent_id = ? ORDER BY seq DESC LIMIT ?'),
      remove: db.prepare('DELETE FROM cairn_agents WHERE id = ?'),
      removeEvents: db.prepare('DELETE FROM cairn_events WHERE agent_id = ?'),
    };
  }

  /**
   * Creates a queued agent with a fresh id; `front` puts it before every queued agent. The event `eventOf`
   * makes of the record is kept in the same transaction.
   */
  create(
    fields: Omit<AgentRecord, 'id' | 'state' | 'queueSeq' | 'createdAt' | 'updatedAt' | 'runs' | 'spent'>,
    front: boolean,
    eventOf?: (record: AgentRecord) => CairnEvent,
  ): AgentRecord {
    const db = this.store.db;
    return db
      .transaction(() => {
        const id = newAgentId((candidate) => this.statements.exists.get(candidate) !== undefined);
        const bounds = this.statements.seqBounds.get() as { low: number | null; high: number | null };
        const queueSeq = front ? (bounds.low ?? 0) - 1 : (bounds.high ?? 0) + 1;
        const now = this.clock();
        const record: AgentRecord = {
          ...fields,
          id,
          state: 'queued',
          queueSeq,
          createdAt: now,
          updatedAt: now,
          runs: 0,
          spent: { tokens: 0, bytes: 0, calls: 0, wallMs: 0, repairs: 0 },
        };
        this.statements.insert.run(id, record.state, queueSeq, now, now, encode(record));
        if (eventOf !== undefined) this.keep(eventOf(record));
        return record;
      })
      .immediate();
  }

  /** Adds a queued agent with the id and spec another store gave it (a worker taking a coordinator's agent). */
  insertQueued(fields: Omit<AgentRecord, 'state' | 'queueSeq' | 'createdAt' | 'updatedAt' | 'runs' | 'spent'>): AgentRecord {
    const now = this.clock();
    const record: AgentRecord = {
      ...fields,
      state: 'queued',
      queueSeq: 0,
      createdAt: now,
      updatedAt: now,
      runs: 0,
      spent: { tokens: 0, bytes: 0, calls: 0, wallMs: 0, repairs: 0 },
    };
    this.statements.insert.run(record.id, record.state, 0, now, now, encode(record));
    return record;
  }

  /** bin.db itself, for the tables kept beside the agents (the inbox's decisions). */
  get database(): AgentFS['db'] {
    return this.store.db;
  }

  get(id: string): AgentRecord | undefined {
    const row = this.statements.get.get(id) as Row | undefined;
    return row === undefined ? undefined : decode(row);
  }

  /** The record, or `CAIRN_NOT_FOUND` naming the id. */
  require(id: string): AgentRecord {
    if (typeof id !== 'string' || id === '')
      throw new CairnError('CAIRN_INVALID_ARGUMENT', 'an agent id is required', { hint: 'list agents with `cairn ls`' });
    const record = this.get(id);
    if (record === undefined)
      throw new CairnError('CAIRN_NOT_FOUND', `no agent "${id}" in this project`, { hint: 'list agents with `cairn ls`' });
    return record;
  }

  list(states?: readonly AgentState[]): AgentRecord[] {
    if (states === undefined) return (this.statements.all.all() as Row[]).map(decode);
    return states
      .flatMap((state) => (this.statements.byState.all(state) as Row[]).map(decode))
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  /** The records written at or after `time` (Unix ms), in no particular order. */
  changedSince(time: number): AgentRecord[] {
    return (this.statements.changedSince.all(time) as Row[]).map(decode);
  }

  /** How many agents the project has, in every state. */
  count(): number {
    return this.statements.count.get() as number;
  }

  /** Queued agents in the order they should start. */
  queued(): AgentRecord[] {
    return (this.statements.byState.all('queued') as Row[]).map(decode);
  }

  /**
   * Moves an agent from one of `from` to `to` and applies `patch`, atomically; refuses an illegal transition,
   * or one another process got to first, naming the state the agent is really in. `within` runs on the moved
   * record in the same transaction; the event it returns is kept there too (one commit, one sync of bin.db).
   */
  transition(
    id: string,
    from: readonly AgentState[],
    to: AgentState,
    patch: AgentPatch = {},
    verb = `move to ${to}`,
    within?: (record: AgentRecord) => CairnEvent | undefined,
  ): AgentRecord {
    return this.store.db
      .transaction(() => {
        const current = this.require(id);
        if (!from.includes(current.state) || !canTransition(current.state, to)) {
          const hint = hintFor(current.state, id);
          throw new CairnError(
            'CAIRN_INVALID_STATE',
            `agent ${id} is ${current.state}; cannot ${verb} (it must be ${from.join(' or ')})`,
            hint === undefined ? {} : { hint },
          );
        }
        const moved = this.write(current, { ...patch, state: to });
        const event = within?.(moved);
        if (event !== undefined) this.keep(event);
        return moved;
      })
      .immediate();
  }

  /** Changes fields without a state change; `expect` guards against a concurrent transition. */
  update(id: string, patch: AgentPatch, expect?: readonly AgentState[]): AgentRecord {
    return this.store.db
      .transaction(() => {
        const current = this.require(id);
        if (expect !== undefined && !expect.includes(current.state)) {
          throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} is ${current.state} (expected ${expect.join(' or ')})`);
        }
        return this.write(current, patch);
      })
      .immediate();
  }

  private write(current: AgentRecord, patch: AgentPatch): AgentRecord {
    const next = { ...current, ...patch, updatedAt: Math.max(this.clock(), current.updatedAt) } as AgentRecord;
    for (const key of Object.keys(patch) as (keyof AgentPatch)[]) if (patch[key] === undefined) delete (next as Partial<AgentRecord>)[key];
    const result = this.statements.update.run(next.state, next.queueSeq, next.updatedAt, encode(next), current.id, current.state);
    if (result.changes !== 1) throw new CairnError('CAIRN_BUSY', `agent ${current.id} changed while it was being updated; try again`);
    return next;
  }

  /** Keeps an event for `cairn status` (lifecycle events; tool calls live in the journal). */
  recordEvent(agentId: string | undefined, time: number, body: unknown): void {
    this.statements.addEvent.run(agentId ?? null, time, JSON.stringify(body));
  }

  /** True when `event` was kept with the change it reports (the event log leaves it alone). */
  hasKept(event: CairnEvent): boolean {
    return this.kept.has(event);
  }

  private keep(event: CairnEvent): void {
    if ('agentId' in event && event.agentId !== undefined) this.recordEvent(event.agentId, Date.parse(event.time), event);
    this.kept.add(event);
  }

  /** The agent's latest recorded events, oldest first. */
  recentEvents(agentId: string, limit = 20): unknown[] {
    return (this.statements.events.all(agentId, limit) as { body: string }[]).map((row) => JSON.parse(row.body) as unknown).reverse();
  }

  /** Forgets an agent and its events (a worker, once it has sent the agent's result away). */
  remove(id: string): void {
    this.store.db.transaction(() => {
      this.statements.remove.run(id);
      this.statements.removeEvents.run(id);
    })();
  }

  close(): void {
    this.store.close();
  }
}

function hintFor(state: AgentState, id: string): string | undefined {
  switch (state) {
    case 'queued':
    case 'running':
      return `wait for it with \`cairn status ${id}\``;
    case 'rejected':
      return `bring it back with \`cairn restore ${id}\``;
    case 'accepted':
      return `undo the accept with \`cairn undo ${id}\``;
    case 'failed':
      return `see why with \`cairn status ${id}\``;
    default:
      return undefined;
  }
}

function encode(record: AgentRecord): string {
  return JSON.stringify(record);
}

function decode(row: Row): AgentRecord {
  const record = JSON.parse(row.data) as AgentRecord;
  return {
    ...record,
    id: row.id,
    state: row.state as AgentState,
    queueSeq: row.queue_seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
