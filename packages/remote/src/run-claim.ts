import type { AgentRecord } from '@cairn/orchestrator/engine';
import type { Job } from 'bullmq';
import type { RemoteProgress } from './remote-job.js';
import { verifyText } from './signing-key.js';
import { claimSigningText } from './upload-signature.js';
import type { WorkerRoster } from './worker-roster.js';

/** Who took a job's run, as its claim proves. */
export interface RunClaim {
  run: number;
  worker: string;
}

/** The worker whose claim of the job's current run (in its progress) verifies with its enrolled key, and the run. */
export function claimOf(job: Job, record: AgentRecord, roster: WorkerRoster): RunClaim | undefined {
  const progress = job.progress as Partial<RemoteProgress> | undefined;
  if (typeof progress !== 'object' || progress === null || record.tokenHash === undefined) return undefined;
  const { worker, run, claim } = progress;
  if (typeof worker !== 'string' || typeof claim !== 'string' || run !== job.attemptsStarted) return undefined;
  let key: Uint8Array | undefined;
  try {
    key = roster.keyOf(worker);
  } catch {
    return undefined;
  }
  // a job's progress repeats its claim: `verifyText` checks each signature once
  if (key === undefined || !verifyText(key, claimSigningText(job.id!, run, record.tokenHash), claim)) return undefined;
  return { run, worker };
}

/** The worker a job's progress names, if any (as it says: only a claim verified by `claimOf` proves it). */
export function workerOf(job: Job): string | undefined {
  const worker = (job.progress as { worker?: unknown } | undefined)?.worker;
  return typeof worker === 'string' ? worker : undefined;
}
