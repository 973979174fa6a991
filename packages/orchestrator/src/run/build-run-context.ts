import type { Overlay, ToolCalls } from '@cairn/agentfs';
import type { EffectKernel, Journal } from '@cairn/air';
import type { CairnEvent } from '@cairn/api';
import type { ProposedFile } from '@cairn/checks';
import type { CompiledGovernance, ReceiptSigner } from '@cairn/governance';
import { CHECK_GRANT, FS_GRANT, LLM_GRANT } from '@cairn/governance';
import type { BlobStore, TouchedLog } from '@cairn/workspace';
import { type CheckRunner, checkCaller, proposalOf } from './check-adapter.js';
import type { ResolvedPath } from './resolve-path.js';
import type { ModelCall, RecordedReceipts, ReviewContext, RunContext } from './run-context.js';

/** What every run of one stretch of an agent shares, live or replayed. */
export interface RunSource {
  agentId: string;
  task: string;
  model: string;
  feedback?: string;
  review?: ReviewContext;
  governance: CompiledGovernance;
  kernel: EffectKernel;
  journal: Journal;
  /** Where effect results are looked up (the recording's blobs, in a replay). */
  blobs: BlobStore;
  /** The overlay a run works on, with the blobs and touched log its writes go to. */
  overlay: Overlay;
  viewBlobs: BlobStore;
  touched: TouchedLog;
  transaction: <T>(fn: () => T) => T;
  signer: ReceiptSigner;
  callModel: ModelCall;
  /** Runs a check live (absent in a replay, which takes the recorded receipts). */
  checkRunner?: CheckRunner;
  emit: (event: CairnEvent) => void;
  /** The clock of a run: the machine's, live; the recorded one, in a replay. */
  clockOf(run: number): () => number;
  /** The AgentFS tool-call log, live. */
  toolLog?: ToolCalls;
  /** The recording a replay follows instead of live effects. */
  replay?: { receipts: RecordedReceipts; paths: ReadonlyMap<string, ResolvedPath> };
  /** The proposal a check runs over, when it is more than `overlay` holds (a replay's later stretch). */
  proposal?: () => ProposedFile[];
}

/** The context of run `run`: live when the source has no recording, a replay when it has one. */
export function buildRunContext(source: RunSource, run: number): RunContext {
  const excludes = fsExclusionsOf(source.governance);
  const ctx: RunContext = {
    agentId: source.agentId,
    task: source.task,
    run,
    mode: source.replay === undefined ? 'live' : 'replay',
    kernel: source.kernel,
    journal: source.journal,
    blobs: source.blobs,
    view: { fs: source.overlay.fs, blobs: source.viewBlobs, touched: source.touched, run, ...excludes },
    transaction: source.transaction,
    signer: source.signer,
    model: source.model,
    callModel: source.callModel,
    checks: source.governance.checks,
    proposal: source.proposal ?? (() => proposalOf(source.overlay)),
    runCheck:
      source.checkRunner === undefined
        ? () => Promise.reject(new Error('a replay never runs a check'))
        : checkCaller(source.governance.checks, source.checkRunner, source.viewBlobs),
    checkMsLeft: () => source.kernel.remaining(CHECK_GRANT)?.ms,
    emit: source.emit,
    clock: source.clockOf(run),
    calls: 0,
    tokensLeft: () => source.kernel.remaining(LLM_GRANT)?.tokens,
  };
  if (source.feedback !== undefined) ctx.feedback = source.feedback;
  if (source.review !== undefined) ctx.review = source.review;
  if (source.toolLog !== undefined) ctx.toolLog = source.toolLog;
  if (source.replay !== undefined) {
    ctx.recorded = source.replay.receipts;
    ctx.recordedPaths = source.replay.paths;
  }
  return ctx;
}

/** The paths an agent's file grant keeps it from reading and writing. */
export function fsExclusionsOf(governance: CompiledGovernance): { readExclude: string[]; writeExclude: string[] } {
  const params = governance.grants.find((g) => g.name === FS_GRANT)?.params as
    | { read_exclude?: string[]; write_exclude?: string[] }
    | undefined;
  return { readExclude: params?.read_exclude ?? [], writeExclude: params?.write_exclude ?? [] };
}
