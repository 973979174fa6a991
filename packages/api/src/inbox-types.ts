// The review inbox as every surface sees it: threads, decisions carried out, the audit log.
/** Where a thread of the review inbox stands. */
export type InboxStatus = 'pending' | 'decided' | 'processing' | 'deferred' | 'refused' | 'failed' | 'unhandled' | 'invalid' | 'done';

/** What became of a processed decision (`invalid` when the triage section could not be read). */
export type InboxOutcomeKind =
  | 'merged'
  | 'rejected'
  | 'deferred'
  | 'delegated'
  | 'replied'
  | 'custom'
  | 'unhandled'
  | 'refused'
  | 'failed'
  | 'stale'
  | 'invalid';

/** A problem in a thread file, where the person will find it. */
export interface InboxDiagnostic {
  line: number;
  column: number;
  code: string;
  message: string;
}

/** A thread of the review inbox (`.cairn/threads/inbox/`, or `done/`), as `cairn inbox` lists it. */
export interface InboxThread {
  name: string;
  path: string;
  status: InboxStatus;
  agentId?: string;
  title?: string;
  from?: string;
  branch?: string;
  received?: string;
  decision?: string;
  actor?: string;
  timestamp?: string;
  /** What became of the decision, once processed. */
  outcome?: InboxOutcomeKind;
  /** The audit log's Executed text of the decision's outcome, once processed. */
  executed?: string;
  /** The protocol rule that refused the decision. */
  rule?: string;
  reason?: string;
  diagnostics?: InboxDiagnostic[];
}

/** One decision carried out (or not) by `processInbox`. */
export interface InboxResult {
  thread: string;
  agentId?: string;
  decision?: string;
  actor?: string;
  outcome: InboxOutcomeKind;
  /** As written in the audit log: `✓ merged`, `✗ refused: no-self-merge`, `— deferred: …`. */
  executed: string;
  rule?: string;
  reason?: string;
  /** Where the thread went in `done/`, when it moved. */
  movedTo?: string;
  /** A reviewer agent started by a delegation. */
  reviewer?: string;
  diagnostics?: InboxDiagnostic[];
}

/** What one pass over the inbox did. `ok` is false when a decision was not carried out (refused, failed, unreadable, stale, unhandled). */
export interface InboxProcessOutcome {
  ok: boolean;
  results: InboxResult[];
}

/** One day of the audit log. */
export interface InboxLogView {
  date: string;
  path: string;
  entries: { time: string; source: string; decision: string; executed: string }[];
  /** Set when the file exists but does not read back (someone edited it by hand). */
  problems?: InboxDiagnostic[];
}
