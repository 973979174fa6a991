import type { CheckResultInfo } from './check-results.js';

/** A check's status in words: `passed`, `failed (exit 1)`, `timed out`, `error: …`, `pending`, `stale`. */
export function describeCheckStatus(info: Pick<CheckResultInfo, 'status' | 'exitCode' | 'error'>): string {
  switch (info.status) {
    case 'failed':
      return info.exitCode === undefined ? 'failed' : `failed (exit ${info.exitCode})`;
    case 'timed-out':
      return 'timed out';
    case 'error':
      return info.error === undefined ? 'error' : `error: ${info.error}`;
    default:
      return info.status;
  }
}
