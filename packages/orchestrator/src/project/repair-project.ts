import { existsSync, lstatSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { AgentFS, Ledger } from '@cairn/agentfs';
import type { AgentState, ChangeInfo, ProgramLang, RepairOutcome } from '@cairn/api';
import { CairnError, DEFAULT_BUDGETS, DEFAULT_LIMITS } from '@cairn/api';
import {
  AgentWorkspace,
  cairnEntry,
  changeInfoOf,
  type ProjectLayout,
  projectLayout,
  runStartOf,
  SCHEMAS,
  withProjectLock,
} from '@cairn/workspace';
import { type AgentRecord, AgentStore } from '../agents/agent-store.js';
import { isDatabaseDamage } from '../agents/bin-damage.js';
import { PendingWrites } from '../review/pending-writes.js';

/** The reason given to an agent whose fate its database cannot tell. */
export const RECOVERED_REASON = 'recovered by cairn repair';

const LIVE_DB = /^agent-([0-9a-f]{4,16})\.db$/;
const TRASH_DB = /^agent-([0-9a-f]{4,16})\.(\d+)\.db$/;

/**
 * Gets a project whose bin.db is damaged or lost working again, losing nothing that can be saved:
 * 1. a damaged bin.db is moved aside (kept beside it as `bin.damaged-<time>.db`, with its WAL), after the
 *    records that can still be read from it are taken;
 * 2. every agent database without a record (`.agentfs/agent-<id>.db`, and rejected ones in `.agentfs/trash/`)
 *    gets one rebuilt from what it holds: the task and program from its journal, its changes, an accept
 *    stable.db kept for it; its state is `accepted` when an accept took everything, `reviewing` when it has
 *    changes and submitted them, `rejected` in the trash (restorable again), otherwise `failed`
 *    ("recovered by cairn repair");
 * 3. it says what it recovered, and what it could not.
 * A sound bin.db is kept; only agent databases it does not know are added to it.
 */
export function repairProject(root: string, options: { clock?: () => number } = {}): RepairOutcome {
  const layout = projectLayout(root);
  if (!existsSync(layout.agentfsDir))
    throw new CairnError('CAIRN_PROJECT', `not a Cairn project: ${layout.root} has no .agentfs/ folder`, {
      hint: 'run `cairn repair` in the project whose databases need repair',
    });
  const clock = options.clock ?? Date.now;
  return withProjectLock(layout, () => repairLocked(layout, clock));
}

function repairLocked(layout: ProjectLayout, clock: () => number): RepairOutcome {
  const outcome: RepairOutcome = { binDb: checkBin(layout.binPath, clock), recovered: [], unrecovered: [], lost: [] };
  let salvaged: AgentRecord[] = [];
  if (outcome.binDb === 'damaged') {
    salvaged = salvageRecords(layout.binPath);
    outcome.movedAside = moveAside(layout, clock());
    outcome.lost.push(
      salvaged.length > 0
        ? 'the event history and the review-inbox decisions kept in bin.db (its readable agent records were kept)'
        : 'the event history, the review-inbox decisions and the agents that were queued but had not started, kept only in bin.db',
    );
  }
  const stable = openStableForRepair(layout);
  const store = new AgentStore(layout.binPath, clock);
  const ledger = Ledger.open(layout.binPath, { clock });
  try {
    const known = new Set(store.list().map((r) => r.id));
    const trash = trashDatabases(layout);
    for (const record of salvaged) {
      if (known.has(record.id)) continue;
      const kept = { ...record };
      delete kept.ledgerId;
      const retired = trash.get(record.id);
      if (record.state === 'rejected' && retired !== undefined) {
        kept.ledgerId = adopt(ledger, layout, record.id, retired, clock).id;
        trash.delete(record.id);
      } else if (record.state === 'rejected') kept.reason = `${record.reason ?? 'rejected'} (its database was not found)`;
      insertRecord(store, kept);
      known.add(record.id);
      outcome.recovered.push({ id: record.id, state: kept.state, task: kept.task, from: 'bin.db' });
    }
    for (const [id, path] of liveDatabases(layout)) {
      if (known.has(id)) continue;
      const record = recoverRecord(id, path, stable, clock, outcome);
      insertRecord(store, record);
      known.add(id);
      outcome.recovered.push({ id, state: record.state, task: record.task, from: 'agent database' });
    }
    for (const [id, path] of trash) {
      if (known.has(id)) continue;
      const record = recoverRecord(id, path, stable, clock, outcome);
      const entry = adopt(ledger, layout, id, path, clock);
      const rejected: AgentRecord = {
        ...record,
        state: 'rejected',
        rejectedFrom: record.state === 'accepted' ? 'reviewing' : record.state,
        ledgerId: entry.id,
        reason: RECOVERED_REASON,
      };
      insertRecord(store, rejected);
      known.add(id);
      outcome.recovered.push({ id, state: 'rejected', task: record.task, from: 'agent database' });
    }
  } finally {
    ledger.close();
    store.close();
    stable.close();
  }
  return outcome;
}

/** Whether bin.db can be used: present, passing SQLite's check, every agent record and ledger row readable. */
function checkBin(binPath: string, clock: () => number): RepairOutcome['binDb'] {
  if (!existsSync(binPath)) return 'missing';
  let store: AgentStore | undefined;
  let ledger: Ledger | undefined;
  try {
    store = new AgentStore(binPath, clock);
    if ((store.database.pragma('quick_check', { simple: true }) as string) !== 'ok') return 'damaged';
    store.list();
    ledger = Ledger.open(binPath, { clock });
    ledger.list({ all: true });
    return 'sound';
  } catch (error) {
    if (isDatabaseDamage(error) || error instanceof SyntaxError) return 'damaged';
    throw error;
  } finally {
    ledger?.close();
    store?.close();
  }
}

/** The agent records a damaged bin.db still yields, read-only, row by row; none when it cannot be read at all. */
function salvageRecords(binPath: string): AgentRecord[] {
  const records: AgentRecord[] = [];
  let db: AgentFS | undefined;
  try {
    db = AgentFS.open(binPath, { readonly: true });
    const rows = db.db.prepare('SELECT id, state, queue_seq, created_at, updated_at, data FROM cairn_agents').iterate() as Iterable<{
      id: string;
      state: AgentState;
      queue_seq: number;
      created_at: number;
      updated_at: number;
      data: string;
    }>;
    for (const row of rows) {
      try {
        const data = JSON.parse(row.data) as AgentRecord;
        if (typeof data.task !== 'string') continue;
        records.push({
          ...data,
          id: row.id,
          state: row.state,
          queueSeq: row.queue_seq,
          createdAt: row.created_at,
          updatedAt: row.updated_at,
        });
      } catch {
        // a row whose record is not JSON is rebuilt from the agent's database, if it has one
      }
    }
  } catch {
    // what could be read before the damage is kept
  } finally {
    db?.close();
  }
  return records;
}

/** Moves a damaged bin.db (and its WAL files) aside under a name with the time; returns the new path. */
function moveAside(layout: ProjectLayout, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  let target = join(layout.agentfsDir, `bin.damaged-${stamp}.db`);
  for (let n = 2; existsSync(target); n++) target = join(layout.agentfsDir, `bin.damaged-${stamp}-${n}.db`);
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(layout.binPath + suffix)) renameSync(layout.binPath + suffix, target + suffix);
  return target;
}

function openStableForRepair(layout: ProjectLayout): AgentFS {
  try {
    return AgentFS.open(layout.stablePath, { durability: 'full' });
  } catch (error) {
    if (!isDatabaseDamage(error)) throw error;
    throw new CairnError('CAIRN_CORRUPT', `${layout.stablePath} is damaged too: ${(error as Error).message}`, {
      hint: 'stable.db only mirrors your files: move it aside, then run `cairn repair` again',
      cause: error,
    });
  }
}

/** `agent-<id>.db` files directly in `.agentfs/` (anything else of that name, such as a folder, is not Cairn's). */
function liveDatabases(layout: ProjectLayout): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(layout.agentfsDir).sort()) {
    const match = LIVE_DB.exec(name);
    if (match !== null && lstatSync(join(layout.agentfsDir, name)).isFile()) found.set(match[1]!, join(layout.agentfsDir, name));
  }
  return found;
}

/** Rejected overlays in `.agentfs/trash/`, the newest per agent. */
function trashDatabases(layout: ProjectLayout): Map<string, string> {
  const dir = join(layout.agentfsDir, 'trash');
  const found = new Map<string, { path: string; n: number }>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return new Map();
  }
  for (const name of names) {
    const match = TRASH_DB.exec(name);
    if (match === null || !lstatSync(join(dir, name)).isFile()) continue;
    const n = Number(match[2]);
    if ((found.get(match[1]!)?.n ?? -1) < n) found.set(match[1]!, { path: join(dir, name), n });
  }
  return new Map([...found].map(([id, { path }]) => [id, path]));
}

function adopt(ledger: Ledger, layout: ProjectLayout, id: string, retiredPath: string, clock: () => number) {
  return ledger.adopt({ agentId: id, originalPath: layout.overlayPath(id), retiredPath, reason: RECOVERED_REASON, retiredAt: clock() });
}

/** An agent record rebuilt from its database: what its journal, its overlay and stable.db's accepts say. */
function recoverRecord(id: string, path: string, stable: AgentFS, clock: () => number, outcome: RepairOutcome): AgentRecord {
  const created = Math.round(lstatSync(path).mtimeMs);
  const base: AgentRecord = {
    id,
    task: '(unknown: the agent database does not say)',
    state: 'failed',
    origin: 'model',
    lang: 'js',
    limits: { ...DEFAULT_LIMITS },
    budgets: { ...DEFAULT_BUDGETS },
    queueSeq: 0,
    createdAt: created,
    updatedAt: clock(),
    runs: 0,
    spent: { tokens: 0, bytes: 0, calls: 0, wallMs: 0, repairs: 0 },
    reason: RECOVERED_REASON,
    failure: { code: 'recovered', message: RECOVERED_REASON },
  };
  let workspace: AgentWorkspace;
  try {
    workspace = AgentWorkspace.open(id, path, stable);
  } catch (error) {
    const why = isDatabaseDamage(error) ? 'its database is damaged' : (error as Error).message;
    outcome.unrecovered.push({ path, why: `${why}; it is listed as failed, and \`cairn reject ${id}\` discards it` });
    return { ...base, reason: `${RECOVERED_REASON}: ${why}`, failure: { code: 'recovered', message: `${RECOVERED_REASON}: ${why}` } };
  }
  try {
    const record = { ...base };
    const v = cairnEntry(workspace.firstEntry(), SCHEMAS.agentStarted);
    if (v !== undefined) {
      if (typeof v.task === 'string') record.task = v.task;
      if (v.origin === 'code' || v.origin === 'model') record.origin = v.origin;
      if (v.lang === 'js' || v.lang === 'py') record.lang = v.lang as ProgramLang;
      if (typeof v.model === 'string' && v.model !== '') record.model = v.model;
    }
    let submitted: string | undefined;
    for (const entry of workspace.journal.entries()) {
      const start = runStartOf(entry);
      if (start !== undefined) {
        record.runs++;
        if (record.origin === 'code' && record.code === undefined) record.code = workspace.blobs.text(start.programRef);
      }
      const called = cairnEntry(entry, SCHEMAS.toolCalled);
      if (called?.tool === 'submit_result') submitted = String(called.summary ?? '');
    }
    record.spent = { ...record.spent, ...workspace.spent() };
    const head = workspace.head();
    if (head !== undefined) record.journalHead = head;
    const changes: ChangeInfo[] = workspace.overlay.changes().map(changeInfoOf);
    const accepts = new PendingWrites(stable).openAccepts(id);
    if (changes.length === 0 && accepts.length > 0) return settled(record, 'accepted', acceptedChanges(accepts), submitted);
    if (changes.length > 0 && (submitted !== undefined || accepts.length > 0)) return settled(record, 'reviewing', changes, submitted);
    return { ...record, changes };
  } finally {
    workspace.close();
  }
}

function settled(record: AgentRecord, state: AgentState, changes: ChangeInfo[], summary: string | undefined): AgentRecord {
  const next: AgentRecord = { ...record, state, changes };
  delete next.reason;
  delete next.failure;
  if (summary !== undefined) next.summary = summary;
  return next;
}

/** What an agent's open accepts changed, for the record of an accepted agent. */
function acceptedChanges(accepts: ReturnType<PendingWrites['openAccepts']>): ChangeInfo[] {
  const byPath = new Map<string, ChangeInfo>();
  for (const image of accepts.flatMap((a) => a.preImages)) {
    const status = image.before.kind === 'absent' ? 'added' : image.after.kind === 'absent' ? 'deleted' : 'modified';
    const kind = (image.after.kind === 'absent' ? image.before.kind : image.after.kind) as ChangeInfo['kind'];
    byPath.set(image.path, { path: image.path, status, kind });
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/**
 * Writes a record with its own id into bin.db, in the row format `AgentStore` reads (`cairn_agents`: the
 * indexed columns, the rest as JSON), since recovery must keep the id the agent's database is named by.
 */
function insertRecord(store: AgentStore, record: AgentRecord): void {
  store.database
    .prepare('INSERT INTO cairn_agents (id, state, queue_seq, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?)')
    .run(record.id, record.state, record.queueSeq, record.createdAt, record.updatedAt, JSON.stringify(record));
}
