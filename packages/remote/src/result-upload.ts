import { UnrecoverableError } from 'bullmq';
import { describeJob, UPLOAD_REFUSED } from './remote-job.js';
import { type CoordinatorLink, readErrorAnswer, readWorkerAnswer, type UploadClaims, uploadRequest, WORKER_WIRE } from './worker-wire.js';

/** How long an upload is tried, and who hears that the coordinator does not take it yet. */
export interface UploadTries {
  /** Unix ms: the job's token expires then, and the coordinator takes no result after it. */
  deadline: number;
  /** Aborted when the worker leaves the agent. */
  signal: AbortSignal;
  clock: () => number;
  onJob?: (line: string) => void;
}

/** An upload taken, or refused because the coordinator does not trust this worker (and why). */
export type UploadOutcome = { taken: true } | { taken: false; untrusted: string };

/**
 * PUTs the database of job `jobId`'s run `run` with its claims, trying again (every 5 s at most) while the
 * coordinator is away, until `tries.deadline` or until the worker leaves the agent; a refusal ends it at once
 * (`UPLOAD_REFUSED` and the coordinator's reason when it refused the upload itself: the job fails with that, and
 * the coordinator reads it). A retry of bytes the coordinator already took is taken again.
 */
export async function uploadResult(
  link: CoordinatorLink,
  jobId: string,
  run: number,
  claims: UploadClaims,
  body: Uint8Array,
  tries: UploadTries,
): Promise<UploadOutcome> {
  const request = uploadRequest(link, jobId, run, claims, body);
  let told = false;
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    // no answer (the coordinator away, or the connection cut mid-answer) is tried again: the same bytes are taken twice
    const answer = await fetch(request.url, request.init)
      .then(async (response) => ({ status: response.status, text: await response.text() }))
      .catch((error: Error) => error.message);
    let problem: string;
    if (typeof answer === 'string') problem = answer;
    else {
      const { status, text } = answer;
      if (status >= 200 && status < 300) {
        readWorkerAnswer(WORKER_WIRE.upload, text, link.url);
        return { taken: true };
      }
      const refusal = readErrorAnswer(text);
      if (status === 403 && refusal?.untrusted !== undefined) return { taken: false, untrusted: refusal.untrusted };
      if (status === 403 && refusal?.refused !== undefined) throw new UnrecoverableError(`${UPLOAD_REFUSED}${refusal.refused}`);
      problem = `(${status}) ${text.slice(0, 300)}`;
      if (status < 500) throw new Error(`the coordinator refused the upload ${problem}`);
    }
    if (tries.signal.aborted) throw new Error('the worker left the agent');
    if (tries.clock() + delay > tries.deadline)
      throw new Error(`the coordinator did not take the upload before the job's token expired: ${problem}`);
    if (!told) {
      told = true;
      tries.onJob?.(
        `${describeJob(jobId)}: the coordinator does not take the result yet (${problem}); trying again until ${new Date(tries.deadline).toISOString()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
