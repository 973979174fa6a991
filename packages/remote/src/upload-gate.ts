import type { ProjectCore } from '@cairn/orchestrator/engine';
import type { Job, Queue } from 'bullmq';
import { answered } from './queue-answer.js';
import { agentOfJobId } from './remote-job.js';
import { keepRefusedUpload } from './result-intake.js';
import { claimOf } from './run-claim.js';
import { verifyText } from './signing-key.js';
import { uploadSigningText } from './upload-signature.js';
import type { UploadAdmission, UploadClaims } from './worker-endpoint.js';
import type { WorkerRoster } from './worker-roster.js';

/** What the gate reads: the agents, the queue, the enrolled workers; where it keeps refusals; how it says so. */
export interface UploadGateNeeds {
  store: Pick<ProjectCore['store'], 'get'>;
  queue: Pick<Queue, 'getJob'>;
  roster: WorkerRoster;
  evidenceDir: string;
  clock: () => number;
  log(agentId: string, message: string): void;
}

/**
 * Whether the upload `body` (a file, its bytes) of `jobId`'s run `run` is taken: only while the job is its
 * agent's, when the worker it names is enrolled and signed it, and that worker is the one whose claim of the
 * run the coordinator verified (or, no claim verified yet, the one the signature proves). A refused upload is
 * moved into the evidence folder with why, and the agent's log says so; it takes no slot, and blames nobody.
 */
export async function admitUpload(
  needs: UploadGateNeeds,
  jobId: string,
  run: number,
  claims: UploadClaims,
  body: string,
  from?: string,
): Promise<UploadAdmission> {
  const agentId = agentOfJobId(jobId);
  const record = agentId === undefined ? undefined : needs.store.get(agentId);
  if ((record?.state !== 'running' && record?.state !== 'queued') || record.remoteJob?.id !== jobId || record.tokenHash === undefined) {
    if (record !== undefined)
      needs.log(record.id, `worker ${claims.worker} uploaded a result for job ${jobId} once it was no longer the agent's; not kept`);
    return {
      ok: false,
      status: 409,
      message: `job ${jobId} is no longer its agent's (the agent settled, or its job was put on the queue again); nothing was kept`,
    };
  }
  const refuse = (refused: string): UploadAdmission => {
    const kept = keepRefusedUpload(needs.evidenceDir, body, jobId, run, {
      ...claims,
      refused,
      at: new Date(needs.clock()).toISOString(),
      ...(from === undefined ? {} : { from }),
    });
    needs.log(record.id, `an upload for job ${jobId} (run ${run}) as worker ${claims.worker} was refused: ${refused}; kept in ${kept}`);
    return { ok: false, status: 403, refused };
  };
  const key = needs.roster.keyOf(claims.worker);
  if (key === undefined) return refuse(`worker ${claims.worker} is not enrolled: its key is not listed in .cairn/config.json`);
  if (!verifyText(key, uploadSigningText(jobId, run, claims.sha256, claims.head, record.tokenHash), claims.signature))
    return refuse(`the upload's signature does not verify with worker ${claims.worker}'s enrolled key`);
  let job: Job | undefined;
  try {
    job = await answered(needs.queue.getJob(jobId));
  } catch (error) {
    return { ok: false, status: 503, message: `the queue does not answer: ${(error as Error).message}` };
  }
  if (job === undefined || job.attemptsStarted !== run)
    return {
      ok: false,
      status: 409,
      message: `run ${run} of job ${jobId} is over${job === undefined ? '' : ` (the job is at run ${job.attemptsStarted})`}; nothing was kept`,
    };
  const claim = record.remoteJob.claim?.run === run ? record.remoteJob.claim : claimOf(job, record, needs.roster);
  if (claim !== undefined && claim.worker !== claims.worker)
    return refuse(`run ${run} of job ${jobId} was taken by worker ${claim.worker}, not by worker ${claims.worker}`);
  return { ok: true };
}
