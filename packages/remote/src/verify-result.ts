import { existsSync, readFileSync } from 'node:fs';
import { AgentFS, sameState, stateOf } from '@cairn/agentfs';
import { isCairnError } from '@cairn/api';
import { ReceiptSigner } from '@cairn/governance';
import type { AgentRecord, ProjectCore } from '@cairn/orchestrator/engine';
import { contentDigest, replayRecorded } from '@cairn/orchestrator/engine';
import { AgentWorkspace, cairnEntry, SCHEMAS } from '@cairn/workspace';
import { governanceHash, tokenHash, verifyToken } from './capability-token.js';
import { verifyText } from './signing-key.js';
import { hashFile } from './snapshots.js';
import { uploadSigningText } from './upload-signature.js';
import type { UploadClaims } from './worker-endpoint.js';

/** What the coordinator checks a remote result against. */
export interface ExpectedResult {
  record: AgentRecord;
  jobId: string;
  attempt: number;
  token: string;
  coordinatorKey: Uint8Array;
  /** sha256 (hex) of the snapshot the job named, and where this coordinator keeps it. */
  snapshot: string;
  snapshotPath: string;
  upload: { db: string; claims: string };
  /** The enrolled workers' public keys, by name. */
  workerKey(name: string): Uint8Array | undefined;
  /** Runs the worker reported (a replay re-runs exactly these). */
  runs: number;
  now: number;
}

/** A result verified, or the reason it is refused and whether the worker is to blame. */
export type Verdict =
  | { ok: true; head: { hash: string; length: number }; workerKey: string }
  | { ok: false; reason: string; blameWorker: boolean };

/**
 * Nothing a worker sends is trusted until this passes: the token (the coordinator's signature, the agent, the
 * attempt), the worker's enrolment and its signature of the upload, the upload's hash, the journal's chain to
 * the declared head, its start from the token's hash under the expected governance, and a replay with no model
 * (every effect admitted again by grants, policy and budgets, every receipt verified with the worker's key)
 * whose rebuilt overlay must hash like the uploaded one.
 */
export async function verifyResult(
  core: Pick<ProjectCore, 'defaultModel' | 'sandbox' | 'signer'>,
  expected: ExpectedResult,
  worker: string,
): Promise<Verdict> {
  const refuse = (reason: string, blameWorker = true): Verdict => ({ ok: false, reason, blameWorker });
  const token = verifyToken(expected.token, expected.coordinatorKey, expected.now);
  if (!token.ok) return refuse(token.reason, false);
  if (token.claims.agent !== expected.record.id || token.claims.job !== expected.jobId)
    return refuse('the capability token is for another job', false);
  if (token.claims.snapshot !== `sha256:${expected.snapshot}`)
    return refuse('the job names another snapshot than its capability token', false);
  if (!existsSync(expected.upload.db) || !existsSync(expected.upload.claims))
    return refuse(`worker ${worker} completed the job without uploading its result`);
  const claims = JSON.parse(readFileSync(expected.upload.claims, 'utf8')) as UploadClaims;
  if (claims.worker !== worker) return refuse(`the upload is signed as worker ${claims.worker}, the job was completed by ${worker}`);
  const key = expected.workerKey(worker);
  if (key === undefined) return refuse(`worker ${worker} is not enrolled: its key is not listed in .cairn/config.json`);
  const hashOfToken = tokenHash(expected.token);
  if (!verifyText(key, uploadSigningText(expected.jobId, expected.attempt, claims.sha256, claims.head, hashOfToken), claims.signature))
    return refuse(`the upload's signature does not verify with worker ${worker}'s enrolled key`);
  if ((await hashFile(expected.upload.db)) !== claims.sha256) return refuse('the uploaded database does not hash to its declared sha256');
  const snapshot = AgentFS.open(expected.snapshotPath, { readonly: true });
  let workspace: AgentWorkspace | undefined;
  try {
    try {
      workspace = AgentWorkspace.open(expected.record.id, expected.upload.db, snapshot, claims.head);
    } catch (error) {
      if (isCairnError(error, 'CAIRN_CORRUPT')) return refuse(error.message);
      throw error;
    }
    const start = cairnEntry(workspace.firstEntry(), SCHEMAS.agentStarted);
    if (start?.agent !== expected.record.id) return refuse("the journal does not start with this agent's start");
    if (start.token !== hashOfToken) return refuse("the journal does not start from the job's capability token");
    const governance = typeof start.governance_ref === 'string' ? workspace.blobs.text(start.governance_ref) : undefined;
    if (governance === undefined || governanceHash(governance) !== token.claims.governance)
      return refuse('the journal runs under other grants than the capability token gave');
    const forged = forgedBefore(workspace, snapshot, expected.runs);
    if (forged !== undefined) return refuse(`the upload's record of ${forged} before the run is not what the snapshot holds`);
    const touched = new Set<string>();
    let rebuilt = '';
    const replay = await replayRecorded(core, { ...expected.record, runs: expected.runs }, workspace, {
      signer: ReceiptSigner.verifying(key),
      onRebuilt: (fs, runs) => {
        const paths = runs.flatMap((run) => workspace!.touched.entries(run).map((entry) => entry.path));
        for (const path of paths) touched.add(path);
        rebuilt = contentDigest(fs, paths);
      },
    });
    if (!replay.ok) return refuse(`the replay does not reproduce the journal: ${replay.divergence?.reason ?? 'it differs'}`);
    // a change beside the journal would reach review unverified (a folder made for a file the journal wrote is not one)
    const stray = workspace.overlay
      .changes()
      .find(
        (change) =>
          !touched.has(change.path) &&
          !(change.status === 'added' && change.kind === 'dir' && [...touched].some((path) => path.startsWith(`${change.path}/`))),
      );
    if (stray !== undefined) return refuse(`the upload changes ${stray.path}, which its journal never touched`);
    const uploaded = contentDigest(workspace.overlay.fs, touched);
    if (rebuilt !== uploaded) return refuse(`the uploaded overlay (${uploaded}) is not what the replay rebuilt (${rebuilt})`);
    return { ok: true, head: claims.head, workerKey: Buffer.from(key).toString('hex') };
  } finally {
    workspace?.close();
    snapshot.close();
  }
}

/**
 * The first path whose state before a run, as the upload records it (the replay starts from these), differs
 * from the snapshot's: every run of a remote agent starts from the snapshot (a failed run is rolled back).
 */
function forgedBefore(workspace: AgentWorkspace, snapshot: AgentFS, runs: number): string | undefined {
  for (let run = 1; run <= runs; run++)
    for (const entry of workspace.touched.entries(run))
      if (!sameState(workspace.touched.stateOf(entry), stateOf(snapshot.fs, `/${entry.path}`))) return entry.path;
  return undefined;
}
