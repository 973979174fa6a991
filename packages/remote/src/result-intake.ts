import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentFailure } from '@cairn/api';
import type { AgentRecord, ProjectCore } from '@cairn/orchestrator/engine';
import { submitProposal } from '@cairn/orchestrator/engine';
import { AgentWorkspace, spentFromJournal } from '@cairn/workspace';
import { type UploadClaims, uploadPaths } from './worker-endpoint.js';

/** What a verified result adds to the agent: the journal head it was verified at and the worker's key. */
export interface VerifiedUpload {
  head: { hash: string; length: number };
  workerKey: string;
}

/** What a worker says of a run that reached review. */
export interface ReviewedRun {
  summary: string;
  calls: number;
  wallMs: number;
  repairs: number;
  runs: number;
}

/** Moves a verified upload into place as the agent's database and the agent to `reviewing`. */
export function adoptUpload(
  core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable'>,
  record: AgentRecord,
  db: string,
  { head, workerKey }: VerifiedUpload,
  run: ReviewedRun,
): void {
  const path = core.layout.overlayPath(record.id);
  rmSync(path, { force: true });
  renameSync(db, path);
  rmSync(db.replace(/\.db$/, '.json'), { force: true });
  const workspace = AgentWorkspace.open(record.id, path, core.stable, head);
  try {
    const spent = { ...spentFromJournal(workspace.journal.entries()), calls: run.calls, wallMs: run.wallMs, repairs: run.repairs };
    const patch = { remoteJob: undefined, workerKey, runs: run.runs, spent, journalHead: head };
    submitProposal(core, record, workspace, { summary: run.summary, patch });
  } finally {
    workspace.close();
  }
}

/** Moves a refused upload into the evidence folder; the path of the kept database. */
export function keepEvidence(evidenceDir: string, upload: { db: string; claims: string }, jobId: string, attempt: number): string {
  mkdirSync(evidenceDir, { recursive: true, mode: 0o700 });
  const kept = uploadPaths(evidenceDir, jobId, attempt);
  if (existsSync(upload.db)) renameSync(upload.db, kept.db);
  if (existsSync(upload.claims)) renameSync(upload.claims, kept.claims);
  return kept.db;
}

/** What is kept beside an upload refused as it arrived: its claims, why, when, and from which address. */
export interface RefusedUpload extends UploadClaims {
  refused: string;
  at: string;
  from?: string;
}

/**
 * Keeps an upload refused as it arrived (`body`, its bytes) in the evidence folder, with its claims and why, as
 * `<job>.<run>.db` and `.json` (`<job>.<run>-2.db`… when the run has some already); the path of the database.
 */
export function keepRefusedUpload(evidenceDir: string, body: string, jobId: string, run: number, refused: RefusedUpload): string {
  mkdirSync(evidenceDir, { recursive: true, mode: 0o700 });
  let kept = uploadPaths(evidenceDir, jobId, run);
  for (let n = 2; existsSync(kept.claims); n++) {
    const base = join(evidenceDir, `${jobId}.${run}-${n}`);
    kept = { db: `${base}.db`, claims: `${base}.json` };
  }
  writeFileSync(kept.claims, JSON.stringify(refused, null, 2), { mode: 0o600 });
  renameSync(body, kept.db);
  return kept.db;
}

/** The refusal kept for an upload of `jobId`'s run `run` that names `worker`, if one was kept. */
export function refusedUploadOf(
  evidenceDir: string,
  jobId: string,
  run: number,
  worker: string,
): { path: string; refused: string } | undefined {
  let names: string[];
  try {
    names = readdirSync(evidenceDir);
  } catch {
    return undefined;
  }
  const prefix = `${jobId}.${run}`;
  for (const name of names.filter((n) => n.endsWith('.json') && (n === `${prefix}.json` || n.startsWith(`${prefix}-`))).sort()) {
    try {
      const kept = JSON.parse(readFileSync(join(evidenceDir, name), 'utf8')) as Partial<RefusedUpload>;
      if (kept.worker === worker && typeof kept.refused === 'string')
        return { path: join(evidenceDir, name.replace(/\.json$/, '.db')), refused: kept.refused };
    } catch {
      // not a refusal this coordinator wrote
    }
  }
  return undefined;
}

/** Fails a remote agent with `failure`, unless someone else moved it first (a reject): that move stands. */
export function failRemoteAgent(
  core: Pick<ProjectCore, 'lifecycle'>,
  id: string,
  failure: AgentFailure,
  from: readonly ('queued' | 'running')[] = ['queued', 'running'],
): void {
  try {
    core.lifecycle.move(
      id,
      from,
      'failed',
      { owner: undefined, remoteJob: undefined, failure, reason: failure.message },
      'fail',
      (_, time) => ({
        type: 'agent.failed',
        time,
        agentId: id,
        code: failure.code,
        reason: failure.message,
      }),
    );
  } catch {
    // the agent is no longer in a state it can fail from
  }
}
