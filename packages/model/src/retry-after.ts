/** Retries of a request a busy server refused (429, 503) before giving up. */
export const BUSY_RETRIES = 3;

/** The longest wait between two tries, whatever `Retry-After` asks. */
const LONGEST_WAIT_MS = 30_000;

/**
 * How long to wait before trying again: what `Retry-After` asks (seconds or an HTTP date), else 1 s, 2 s,
 * 4 s…; never more than 30 s.
 */
export function retryDelayMs(header: string | null | undefined, attempt: number, now: number = Date.now()): number {
  const fallback = 1000 * 2 ** attempt;
  if (header === null || header === undefined || header.trim() === '') return Math.min(fallback, LONGEST_WAIT_MS);
  const seconds = Number(header.trim());
  const asked = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - now;
  if (!Number.isFinite(asked)) return Math.min(fallback, LONGEST_WAIT_MS);
  return Math.min(Math.max(0, asked), LONGEST_WAIT_MS);
}

/** True for the statuses of a server that is busy rather than broken. */
export function isBusyStatus(status: number | undefined): boolean {
  return status === 429 || status === 503;
}
