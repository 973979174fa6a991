/** The text a worker signs for an upload: the job's attempt, the upload's bytes, the journal's head, the token it ran under. */
export function uploadSigningText(
  jobId: string,
  attempt: number,
  sha256: string,
  head: { hash: string; length: number },
  tokenHash: string,
): string {
  return ['cairn/upload@1', jobId, String(attempt), sha256, head.hash, String(head.length), tokenHash].join('\n');
}

/**
 * The text a worker signs when it takes a run of a job: the job, the run (BullMQ's `attemptsStarted`), the token
 * it runs under. The job's progress carries the signature; the coordinator records the worker it verifies for.
 */
export function claimSigningText(jobId: string, run: number, tokenHash: string): string {
  return ['cairn/claim@1', jobId, String(run), tokenHash].join('\n');
}
