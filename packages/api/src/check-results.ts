/** A check's result and what it printed. */
export interface CheckOutput {
  result: CheckResultInfo;
  output: string;
}

/** Where a check of a proposal stands: due or running, its outcome, or `stale` once the proposal or the project moved. */
export type CheckStatus = 'pending' | 'passed' | 'failed' | 'timed-out' | 'error' | 'stale';

/** One check of one agent's proposal. */
export interface CheckResultInfo {
  name: string;
  status: CheckStatus;
  /** Runs on every proposal that reaches reviewing. */
  auto: boolean;
  exitCode?: number;
  durationMs?: number;
  /** Set for `error`: what went wrong (the command not found, the view not built). */
  error?: string;
  /** `overlay` or `copy`, and whether it ran in namespaces; `why` says why that view. */
  view?: 'overlay' | 'copy';
  sealed?: boolean;
  why?: string;
  /** Bytes the command printed (the output keeps at most the check's cap). */
  outputBytes?: number;
  truncated?: boolean;
  /** When the result last changed (ISO 8601). */
  updatedAt: string;
}
