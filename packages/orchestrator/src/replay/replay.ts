import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { AgentFS, Ledger, Overlay } from '@cairn/agentfs';
import { Journal, type JournalEntry, MemoryJournalStore, type Receipt, receiptFromRecord } from '@cairn/air';
import type { ReplayDivergence, ReplayOutcome } from '@cairn/api';
import { CairnError, isCairnError } from '@cairn/api';
import type { ProposedFile } from '@cairn/checks';
import { compileGovernanceJson, createAgentKernel, ReceiptSigner } from '@cairn/governance';
import {
  AgentWorkspace,
  BlobStore,
  cairnEntry,
  governanceRefOf,
  runStartsOf,
  SCHEMAS,
  spentFromJournal,
  startsStretch,
  TouchedLog,
} from '@cairn/workspace';
import type { AgentRecord } from '../agents/agent-store.js';
import { sessionOutput } from '../agents/exec-captures.js';
import type { ProjectCore } from '../agents/project-core.js';
import { runAttempts } from '../programs/attempts.js';
import { buildRunContext, type RunSource } from '../run/build-run-context.js';
import { proposalOf } from '../run/check-adapter.js';
import { type ResolvedPath, resolutionKey } from '../run/resolve-path.js';
import type { RunContext } from '../run/run-context.js';
import { buildReplayBase } from './replay-base.js';

interface Segment {
  index: number;
  entry: JournalEntry;
  value: { first_run: number; repairs_left: number; calls_left: number; feedback?: string };
}

/**
 * Re-runs an agent's recorded programs against its journal: the same programs, seeds and clocks; every
 * effect the programs make must be the recorded one (same intent), and is answered with the recorded,
 * signed receipt instead of touching the project or the model; writes are made again on a scratch overlay
 * rebuilt from what each run started from. The journal the replay produces must equal the recorded one
 * entry for entry, which also makes every run's digest of the paths it touched equal. A journal that was
 * altered or cut short is refused before anything runs.
 */
export async function replayAgent(
  core: Pick<ProjectCore, 'defaultModel' | 'layout' | 'sandbox' | 'signer' | 'stable' | 'store'>,
  agentId: string,
): Promise<ReplayOutcome> {
  const record = core.store.require(agentId);
  if (record.state === 'queued' || record.state === 'running')
    throw new CairnError('CAIRN_INVALID_STATE', `agent ${agentId} is ${record.state}; replay it once it has stopped`);
  if (record.journalHead === undefined) throw new CairnError('CAIRN_INVALID_STATE', `agent ${agentId} has no journal yet`);
  const path = overlayFile(core, record);
  let recorded: AgentWorkspace;
  try {
    recorded = AgentWorkspace.open(agentId, path, core.stable, record.journalHead, { keepEntries: true });
  } catch (error) {
    if (isCairnError(error, 'CAIRN_CORRUPT')) return refused(error.message);
    throw error;
  }
  try {
    // a worker's receipts verify with its enrolled public key, not the project's receipt key
    const checks =
      record.workerKey === undefined ? {} : { signer: ReceiptSigner.verifying(new Uint8Array(Buffer.from(record.workerKey, 'hex'))) };
    return await replayRecorded(core, record, recorded, checks);
  } finally {
    recorded.close();
  }
}

/** How a replay is checked beyond the journal: whose receipts it verifies, and what it rebuilt. */
export interface ReplayChecks {
  /** Verifies the receipts instead of the project's key (a worker's public key). */
  signer?: ReceiptSigner;
  /** Called with each stretch's rebuilt overlay and the runs it replayed, before the overlay is dropped. */
  onRebuilt?: (fs: Overlay['fs'], runs: readonly number[]) => void;
}

/** Replays a recorded workspace (an agent's database opened by the caller) for `record`. */
export async function replayRecorded(
  core: Pick<ProjectCore, 'defaultModel' | 'sandbox' | 'signer'>,
  record: AgentRecord,
  recorded: AgentWorkspace,
  checks: ReplayChecks = {},
): Promise<ReplayOutcome> {
  const signer = checks.signer ?? core.signer;
  const entries = recorded.entries();
  const segments = segmentsOf(entries);
  const first = segments[0];
  const governanceRef = governanceRefOf(first?.entry);
  if (governanceRef === undefined) return refused("the journal does not start with the agent's start");
  const governance = compileGovernanceJson(recorded.blobs.text(governanceRef));
  const receipts = receiptsOf(entries);
  const starts = new Map(runStartsOf(entries).map((start) => [start.run, start]));
  // the clock of a run, asked at every call: looked up, not searched for in the journal
  const clockOf = (run: number): number => starts.get(run)?.clockMs ?? 0;
  const programOf = (run: number): string | undefined => {
    const started = starts.get(run);
    return started === undefined ? undefined : recorded.blobs.text(started.programRef);
  };
  const recordedPaths = pathsOf(entries);
  const journal = Journal.create(new MemoryJournalStore());
  const scratch = AgentFS.open(':memory:');
  const scratchBlobs = new BlobStore(scratch);
  const scratchTouched = new TouchedLog(scratch, scratchBlobs);
  let divergence: ReplayDivergence | undefined;
  let runs = 0;
  // what the stretches before made, by path: a check in a later stretch runs over the whole proposal so far
  const carried = new Map<string, ProposedFile>();
  try {
    for (const segment of segments) {
      journal.append(segment.entry.kind, segment.entry.body);
      const kernel = createAgentKernel(governance, journal, signer, spentFromJournal(journal.entries()), () => 0n);
      const base = buildReplayBase(recorded.touched, segmentRuns(segment, segments, record));
      const overlay = Overlay.open(':memory:', base);
      try {
        const lastCtx: { ctx?: RunContext } = {};
        const source: RunSource = {
          agentId: record.id,
          task: record.task,
          model: record.model ?? core.defaultModel,
          ...(segment.value.feedback !== undefined && segment.index > 0 ? { feedback: segment.value.feedback } : {}),
          governance,
          kernel,
          journal,
          blobs: recorded.blobs,
          overlay,
          viewBlobs: scratchBlobs,
          touched: scratchTouched,
          transaction: (fn) => overlay.upper.transaction(fn),
          signer,
          callModel: () => Promise.reject(new Error('a replay never calls the model')),
          emit: () => undefined,
          clockOf: (run) => () => clockOf(run),
          replay: { receipts: { take: (hash) => receipts.get(hash), entryAt: (seq) => entries[seq] }, paths: recordedPaths },
          proposal: () => proposalSoFar(carried, overlay),
        };
        const contextFor = (run: number): RunContext => {
          lastCtx.ctx = buildRunContext(source, run);
          if (record.modelOptions !== undefined) lastCtx.ctx.modelOptions = record.modelOptions;
          return lastCtx.ctx;
        };
        const code = record.origin === 'code' ? programOf(segment.value.first_run) : undefined;
        // an MCP environment's segment in which its client made no call (it opened it and left)
        if (record.origin === 'code' && code === undefined) continue;
        const previousProgram =
          record.origin === 'model' && segment.index > 0 ? lastProgramBefore(recorded, entries, segment.entry.seq) : undefined;
        const outcome = await runAttempts(
          {
            origin: record.origin,
            lang: record.lang,
            ...(code === undefined ? {} : { code }),
            ...(previousProgram === undefined ? {} : { previousProgram }),
            repairsLeft: segment.value.repairs_left,
          },
          {
            sandbox: core.sandbox(),
            contextFor,
            firstRun: segment.value.first_run,
            clockFor: (run) => clockOf(run),
            limitsFor: (callsSoFar) => ({
              ...record.limits,
              calls: Math.max(1, segment.value.calls_left - callsSoFar),
              ...sessionOutput(record),
            }),
            onGenerating: () => undefined,
            onRepairing: () => undefined,
          },
        );
        runs += outcome.runs;
        for (const change of proposalOf(overlay)) carried.set(change.path, change);
        checks.onRebuilt?.(overlay.fs, segmentRuns(segment, segments, record));
        if (lastCtx.ctx?.divergence !== undefined && divergence === undefined)
          divergence = { seq: lastCtx.ctx.divergence.seq, reason: lastCtx.ctx.divergence.reason };
      } finally {
        overlay.close();
        base.close();
      }
      if (divergence !== undefined) break;
    }
  } finally {
    scratch.close();
  }
  const produced = journal.entries();
  divergence ??= firstDifference(entries, produced);
  const counts = { entries: entries.length, runs, changesHash: digestOf(produced), recordedChangesHash: digestOf(entries) };
  return divergence === undefined ? { ok: true, ...counts } : { ok: false, ...counts, divergence };
}

/** The proposal as a live run saw it: what the stretches before made, under what this stretch has made. */
function proposalSoFar(carried: ReadonlyMap<string, ProposedFile>, overlay: Overlay): ProposedFile[] {
  const now = new Map(carried);
  for (const change of proposalOf(overlay)) now.set(change.path, change);
  return [...now.values()];
}

function refused(reason: string): ReplayOutcome {
  return {
    ok: false,
    entries: 0,
    runs: 0,
    changesHash: '',
    recordedChangesHash: '',
    divergence: { seq: 0, reason: `the recorded journal is refused: ${reason}` },
  };
}

/** Where the agent's database is: in `.agentfs/`, or in the ledger's trash while rejected. */
function overlayFile(core: Pick<ProjectCore, 'layout'>, record: AgentRecord): string {
  const path = core.layout.overlayPath(record.id);
  if (existsSync(path) || record.ledgerId === undefined) return path;
  const ledger = Ledger.open(core.layout.binPath);
  try {
    const entry = ledger.get(record.ledgerId);
    if (entry === undefined || entry.collectedAt !== null)
      throw new CairnError('CAIRN_NOT_FOUND', `agent ${record.id}'s database was collected; there is nothing to replay`);
    return entry.retiredPath;
  } finally {
    ledger.close();
  }
}

function segmentsOf(entries: readonly JournalEntry[]): Segment[] {
  const segments: Segment[] = [];
  for (const entry of entries) {
    if (startsStretch(entry)) segments.push({ index: segments.length, entry, value: (entry.body as { value: Segment['value'] }).value });
  }
  return segments;
}

/** The run numbers a segment used: up to the next segment's first, or the agent's last. */
function segmentRuns(segment: Segment, segments: readonly Segment[], record: AgentRecord): number[] {
  const next = segments[segment.index + 1];
  const end = next === undefined ? record.runs : next.value.first_run - 1;
  const runs: number[] = [];
  for (let run = segment.value.first_run; run <= end; run++) runs.push(run);
  return runs;
}

function receiptsOf(entries: readonly JournalEntry[]): Map<string, Receipt> {
  const receipts = new Map<string, Receipt>();
  for (const entry of entries) {
    if (entry.kind !== 'ReceiptAppended') continue;
    const receipt = receiptFromRecord((entry.body as { submitted?: never }).submitted as never);
    if (receipt !== undefined) receipts.set(receipt.intentHash, receipt);
  }
  return receipts;
}

/** The recorded path resolutions: through symbolic links, and refusals. */
function pathsOf(entries: readonly JournalEntry[]): Map<string, ResolvedPath> {
  const paths = new Map<string, ResolvedPath>();
  for (const entry of entries) {
    const resolved = cairnEntry(entry, SCHEMAS.pathResolved);
    const refusal = cairnEntry(entry, SCHEMAS.toolRefused);
    const v = resolved ?? refusal;
    if (typeof v?.run !== 'number' || typeof v.raw !== 'string' || (v.mode !== 'follow' && v.mode !== 'entry')) continue;
    if (typeof resolved?.path === 'string') paths.set(resolutionKey(v.run, v.mode, v.raw), { type: 'resolved', path: resolved.path });
    if (typeof refusal?.reason === 'string') paths.set(resolutionKey(v.run, v.mode, v.raw), { type: 'refused', reason: refusal.reason });
  }
  return paths;
}

function lastProgramBefore(recorded: AgentWorkspace, entries: readonly JournalEntry[], seq: number): string | undefined {
  const last = runStartsOf(entries.slice(0, Math.min(seq, entries.length))).at(-1);
  return last === undefined ? undefined : recorded.blobs.text(last.programRef);
}

/** The first entry where the replay's journal and the recorded one differ. */
function firstDifference(recorded: readonly JournalEntry[], produced: readonly JournalEntry[]): ReplayDivergence | undefined {
  const length = Math.max(recorded.length, produced.length);
  for (let seq = 0; seq < length; seq++) {
    const expected = recorded[seq];
    const actual = produced[seq];
    if (expected !== undefined && actual !== undefined && expected.hash === actual.hash) continue;
    if (actual === undefined)
      return { seq, reason: `the replay stopped before entry ${seq} (${describe(expected!)})`, expected: summarize(expected!) };
    if (expected === undefined)
      return { seq, reason: `the replay went on past the recorded journal (${describe(actual)})`, actual: summarize(actual) };
    return {
      seq,
      reason: `entry ${seq} differs: recorded ${describe(expected)}, replayed ${describe(actual)}`,
      expected: summarize(expected),
      actual: summarize(actual),
    };
  }
  return undefined;
}

function describe(entry: JournalEntry): string {
  const body = entry.body as { schema?: string; kind?: string };
  return body.schema ?? (body.kind === undefined ? entry.kind : `${entry.kind} ${body.kind}`);
}

function summarize(entry: JournalEntry): unknown {
  return JSON.parse(
    JSON.stringify({ seq: entry.seq, kind: entry.kind, body: entry.body }, (_key, v: unknown) =>
      typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? `<${v.length} bytes>` : v,
    ),
  );
}

/** Hash over every run's digest of the paths it touched, in order. */
function digestOf(entries: readonly JournalEntry[]): string {
  const hash = createHash('sha256');
  for (const entry of entries) {
    const ended = cairnEntry(entry, SCHEMAS.runEnded);
    if (ended !== undefined) hash.update(`${String(ended.run)}:${String(ended.digest)}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}
