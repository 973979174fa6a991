import { createHash } from 'node:crypto';
import type { ToolCalls } from '@cairn/agentfs';
import type { CborValue, Denial, EffectKernel, Journal, JournalEntry, Receipt } from '@cairn/air';
import type { CairnEvent, ModelOptions } from '@cairn/api';
import type { CheckSpec, ProposedFile } from '@cairn/checks';
import type { ReceiptSigner } from '@cairn/governance';
import type { BlobStore } from '@cairn/workspace';
import type { CheckCall } from './check-adapter.js';
import type { EffectResult, FsView } from './fs-effects.js';
import type { ResolvedPath } from './resolve-path.js';

/** Recorded receipts a replay answers with instead of performing effects, by intent hash. */
export interface RecordedReceipts {
  take(intentHash: string): Receipt | undefined;
  /** The recorded journal's entry at `seq`: where a replay reads what a live run journaled beside its effects. */
  entryAt?(seq: number): JournalEntry | undefined;
}

/** A journal difference found while replaying, inside a tool call. */
export interface Divergence {
  seq: number;
  reason: string;
}

/** The model call an `llm.generate` effect makes when it runs live; `facts` (window, timings) are journaled beside its receipt. */
export type ModelCall = (params: Record<string, CborValue>) => Promise<EffectResult & { facts?: Record<string, CborValue> }>;

/** What a breach of a budget looks like when it fails the agent. */
export interface BudgetBreach {
  budget: string;
  message: string;
}

/**
 * Everything one program run (or one model generation) works with. Live and replayed runs share this shape;
 * they differ only in how an admitted effect is carried out: live by the adapters, signed by `signer`; in a
 * replay by the recorded receipts (writes are performed again on the replay's overlay and must agree).
 */
export interface RunContext {
  agentId: string;
  task: string;
  /** Feedback of the revision this run makes, if any. */
  feedback?: string;
  run: number;
  mode: 'live' | 'replay';
  kernel: EffectKernel;
  journal: Journal;
  /** Where effect results are looked up (the recording's blobs, in a replay). */
  blobs: BlobStore;
  view: FsView;
  /** Runs `fn` in one transaction of the agent's database: a tool call's writes and journal entries commit together. */
  transaction: <T>(fn: () => T) => T;
  /** The AgentFS tool-call log of the agent's database, for AgentFS tools (absent in a replay). */
  toolLog?: ToolCalls;
  signer: ReceiptSigner;
  recorded?: RecordedReceipts;
  /** A replay's recorded path resolutions (through symbolic links, or refused), by `resolutionKey`. */
  recordedPaths?: ReadonlyMap<string, ResolvedPath>;
  model: string;
  /** How the agent asks its model (temperature, seed, window); the defaults when absent. */
  modelOptions?: ModelOptions;
  callModel: ModelCall;
  /** The checks the agent may run (as declared when it started). */
  checks: readonly CheckSpec[];
  /** The agent's proposal so far: its changed files. */
  proposal: () => ProposedFile[];
  /** How a live `check.run` effect runs its check. */
  runCheck: CheckCall;
  /** Wall time left for checks (what the grant has left; the kernel has the final say). */
  checkMsLeft: () => bigint | undefined;
  emit: (event: CairnEvent) => void;
  clock: () => number;
  /** Calls made so far in this run (also the sequence of idempotency keys). */
  calls: number;
  submission?: { summary: string; changedFiles: string[] };
  /** Set for a reviewer agent: the proposal it reviews, and the decision it made. */
  review?: ReviewContext;
  breach?: BudgetBreach;
  divergence?: Divergence;
  /** Tokens left for `ask_llm` (what the grant has left; the kernel has the final say). */
  tokensLeft: () => bigint | undefined;
}

/** The proposal a reviewer reads with `get_proposal()`: plain JSON. */
export interface ProposalForReview {
  agent: string;
  task: string;
  summary: string;
  changes: { path: string; status: string }[];
  diff: string;
  /** Each changed text file as the agent started from it and as it proposes it (null where absent or binary). */
  files: { path: string; status: string; before: string | null; after: string | null }[];
}

/** A reviewer's run: what it reviews and what it decided. */
export interface ReviewContext {
  reviews: string;
  proposal: () => ProposalForReview;
  decision?: { decision: string; note: string };
}

/** The 32-byte idempotency key of a run's n-th effect: the same in a replay as when recorded. */
export function idempotencyKey(agentId: string, run: number, seq: number): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`cairn/${agentId}/${run}/${seq}`).digest());
}

/** The one-line reason of a kernel denial, for the program and the events. */
export function denialMessage(denial: Denial): string {
  return denial.stage === 'policy' ? `denied by policy: ${denial.reason}` : denial.reason;
}

/** True for denials that mean a budget ran out (the agent then fails, naming it). */
export function isBudgetDenial(denial: Denial): boolean {
  return denial.stage === 'budget' || denial.stage === 'exhausted';
}
