import { existsSync, renameSync, rmSync } from 'node:fs';
import { type AgentFS, Overlay, SqliteJournalStore } from '@cairn/agentfs';
import { processAlive } from '@cairn/agentfs/process-alive';
import type { JournalEntry } from '@cairn/air';
import { isCairnError } from '@cairn/api';
import { execStateDir } from '@cairn/exec/paths';
import { AgentWorkspace, runStartsOf } from '@cairn/workspace';
import { frontSeq } from './agent-commands.js';
import type { AgentRecord, AgentStore } from './agent-store.js';
import type { ProjectCore } from './project-core.js';
import { submitProposal } from './submit-proposal.js';

/** How many times a queue runs an agent again after the process running it stopped. */
export const RERUNS_AFTER_INTERRUPT = 1;

/** Why an interrupted agent failed, or that it runs again. */
export const INTERRUPTED = 'the process running the agent stopped before it finished';

/**
 * Running agents whose process is gone: an MCP environment goes to review with what its calls made; one a queue
 * ran goes back to the front of the queue once, on a fresh overlay that keeps the interrupted run's journal; any
 * other is failed as interrupted, its journal kept.
 */
export function recoverOrphans(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'owner' | 'stable' | 'store'>): void {
  for (const record of core.store.list(['running'])) {
    const pid = Number((record.owner ?? '').split(':')[0]);
    if (record.owner !== undefined && Number.isSafeInteger(pid) && pid > 0 && processAlive(pid)) continue;
    // a worker runs it: the coordinator resumes it from its job on the queue
    if (record.remoteJob !== undefined) continue;
    if (!claimOrphan(core.store, record, core.owner)) continue;
    try {
      if (record.session !== undefined && settleSession(core, record)) continue;
      if (mayRerun(record)) rerun(core, record);
      else failInterrupted(core, record);
    } catch (error) {
      if (!isCairnError(error, 'CAIRN_INVALID_STATE')) throw error;
    }
  }
}

function rerun(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable' | 'store'>, record: AgentRecord): void {
  restartOverlay(core.layout.overlayPath(record.id), core.stable);
  const patch = { owner: undefined, interruptions: (record.interruptions ?? 0) + 1, queueSeq: frontSeq(core.store), changes: undefined };
  core.lifecycle.move(record.id, ['running'], 'queued', patch, 'run again', (_, time) => ({
    type: 'agent.requeued',
    time,
    agentId: record.id,
    reason: `${INTERRUPTED}; it runs again`,
  }));
}

/**
 * An MCP environment whose server stopped without ending it (killed): each call is whole in its overlay and
 * journal, so what the calls made goes to review, as when its client leaves. False when it made nothing.
 */
function settleSession(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable'>, record: AgentRecord): boolean {
  const workspace = AgentWorkspace.open(record.id, core.layout.overlayPath(record.id), core.stable);
  try {
    if (workspace.overlay.changes().length === 0) return false;
    const runs = runStartsOf(workspace.journal.entries()).length;
    const spent = { ...record.spent, ...workspace.spent() };
    submitProposal(core, record, workspace, {
      summary: 'unsubmitted: the server running it stopped before its client submitted',
      patch: { runs, spent, journalHead: workspace.head() },
    });
    return true;
  } finally {
    workspace.close();
  }
}

function failInterrupted(core: Pick<ProjectCore, 'layout' | 'lifecycle'>, record: AgentRecord): void {
  const message = (record.interruptions ?? 0) > 0 ? `${INTERRUPTED}, and again when it ran a second time` : INTERRUPTED;
  // an agent CLI's writes so far stay in its view's upper layer, which died with the process that ran it
  const hint =
    record.exec === undefined
      ? 'spawn the task again'
      : `what its program wrote is kept in ${execStateDir(core.layout.workspacesDir, record.id, record.runs + 1)}/upper; spawn it again`;
  const failure = { code: 'interrupted', message, hint };
  core.lifecycle.move(record.id, ['running'], 'failed', { owner: undefined, failure, reason: message }, 'fail', (_, time) => ({
    type: 'agent.failed',
    time,
    agentId: record.id,
    code: 'interrupted',
    reason: message,
  }));
}

/**
 * True when an agent interrupted by the death of its process may run again from a fresh overlay: a queue (a
 * daemon) ran it, this was its first stretch (a revision's overlay holds the proposal under review, which a
 * fresh start would lose), and it was not interrupted before.
 */
function mayRerun(record: AgentRecord): boolean {
  return (
    record.rerunOnInterrupt === true &&
    (record.interruptions ?? 0) < RERUNS_AFTER_INTERRUPT &&
    record.runs === 0 &&
    record.journalHead === undefined
  );
}

/**
 * Takes over a running agent whose process is gone, so no other process recovers it at the same time: true
 * when this process now owns it.
 */
function claimOrphan(store: AgentStore, record: AgentRecord, owner: string): boolean {
  return store.database
    .transaction(() => {
      const current = store.get(record.id);
      if (current?.state !== 'running' || current.owner !== record.owner) return false;
      store.update(record.id, { owner }, ['running']);
      return true;
    })
    .immediate();
}

/**
 * Replaces an agent's overlay with an empty one that keeps the interrupted run's journal
 * (`cairn_interrupted_journal`), for `cairn log`. The new database is built beside the old and renamed over
 * it, so a crash at any point leaves one or the other whole; run again, it finishes the job.
 */
function restartOverlay(path: string, stable: AgentFS): void {
  if (!existsSync(path)) return;
  const old = Overlay.open(path, stable);
  let entries: JournalEntry[];
  try {
    if (hasTable(old.upper.db, 'cairn_interrupted_journal') && !hasRows(old.upper.db, 'cairn_journal')) return;
    entries = [...new SqliteJournalStore(old.upper.db).entries()];
    // an empty write-ahead log: nothing of the old database can be applied to the new one under its name
    old.upper.db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    old.close();
  }
  const fresh = `${path}.rerun`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(fresh + suffix, { force: true });
  const next = Overlay.open(fresh, stable);
  try {
    const kept = new SqliteJournalStore(next.upper.db, 'cairn_interrupted_journal');
    next.upper.transaction(() => {
      for (const entry of entries) kept.append(entry);
    });
  } finally {
    next.close();
  }
  renameSync(fresh, path);
}

/** The journal of an agent's run that was interrupted, when its overlay keeps one. */
export function interruptedJournal(db: AgentFS['db']): JournalEntry[] {
  if (!hasTable(db, 'cairn_interrupted_journal')) return [];
  return [...new SqliteJournalStore(db, 'cairn_interrupted_journal').entries()];
}

function hasTable(db: AgentFS['db'], name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function hasRows(db: AgentFS['db'], table: 'cairn_journal'): boolean {
  return hasTable(db, table) && db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined;
}
