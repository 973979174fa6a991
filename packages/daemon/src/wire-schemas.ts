import { AGENT_STATES } from '@cairn/api';
import * as v from 'valibot';

// What the daemon's client reads off the socket, as valibot schemas: one per type of `api/types.ts` that a
// route answers with, and the event union. `wire-schemas.test-d.ts` proves each output type and its public
// TypeScript type the same, so the two cannot drift apart.

const text = v.string();
const count = v.number();
const texts = v.array(text);
const optional = v.exactOptional;

/** Where an agent is in its life. */
export const agentStateSchema = v.picklist(AGENT_STATES);

const programLang = v.picklist(['js', 'py']);
const changeStatus = v.picklist(['added', 'modified', 'deleted']);

/** One changed path of a proposal. */
export const changeInfoSchema = v.object({ path: text, status: changeStatus, kind: v.picklist(['file', 'dir', 'symlink']) });

/** One check of a proposal. */
export const checkResultInfoSchema = v.object({
  name: text,
  status: v.picklist(['pending', 'passed', 'failed', 'timed-out', 'error', 'stale']),
  auto: v.boolean(),
  exitCode: optional(count),
  durationMs: optional(count),
  error: optional(text),
  view: optional(v.picklist(['overlay', 'copy'])),
  sealed: optional(v.boolean()),
  why: optional(text),
  outputBytes: optional(count),
  truncated: optional(v.boolean()),
  updatedAt: text,
});

/** A check's result with its output. */
export const checkOutputSchema = v.object({ result: checkResultInfoSchema, output: text });

/** An agent as every surface sees it. */
export const agentInfoSchema = v.object({
  id: text,
  task: text,
  state: agentStateSchema,
  createdAt: text,
  updatedAt: text,
  origin: v.picklist(['code', 'model']),
  kind: text,
  command: optional(v.array(text)),
  lang: programLang,
  model: optional(text),
  summary: optional(text),
  changes: optional(v.array(changeInfoSchema)),
  reason: optional(text),
  failure: optional(v.object({ code: text, message: text, hint: optional(text) })),
  runs: count,
  spent: v.object({ tokens: count, bytes: count, calls: count, wallMs: count, repairs: count }),
  role: optional(v.picklist(['author', 'reviewer'])),
  reviews: optional(text),
  decision: optional(v.object({ decision: text, note: text, thread: optional(text) })),
  worker: optional(text),
  checks: optional(v.array(checkResultInfoSchema)),
});

/** One file of a proposal, for showing it over an editor's buffer. */
export const fileProposalSchema = v.object({
  path: text,
  status: changeStatus,
  base: v.nullable(text),
  proposed: v.nullable(text),
  binary: v.boolean(),
});

const inboxOutcomeKind = v.picklist([
  'merged',
  'rejected',
  'deferred',
  'delegated',
  'replied',
  'custom',
  'unhandled',
  'refused',
  'failed',
  'stale',
  'invalid',
]);

/** A problem in a thread file, where the person will find it. */
export const inboxDiagnosticSchema = v.object({ line: count, column: count, code: text, message: text });

/** A thread of the review inbox. */
export const inboxThreadSchema = v.object({
  name: text,
  path: text,
  status: v.picklist(['pending', 'decided', 'processing', 'deferred', 'refused', 'failed', 'unhandled', 'invalid', 'done']),
  agentId: optional(text),
  title: optional(text),
  from: optional(text),
  branch: optional(text),
  received: optional(text),
  decision: optional(text),
  actor: optional(text),
  timestamp: optional(text),
  outcome: optional(inboxOutcomeKind),
  executed: optional(text),
  rule: optional(text),
  reason: optional(text),
  diagnostics: optional(v.array(inboxDiagnosticSchema)),
});

/** One decision carried out (or not) by `processInbox`. */
export const inboxResultSchema = v.object({
  thread: text,
  agentId: optional(text),
  decision: optional(text),
  actor: optional(text),
  outcome: inboxOutcomeKind,
  executed: text,
  rule: optional(text),
  reason: optional(text),
  movedTo: optional(text),
  reviewer: optional(text),
  diagnostics: optional(v.array(inboxDiagnosticSchema)),
});

/** What one pass over the inbox did. */
export const inboxProcessOutcomeSchema = v.object({ ok: v.boolean(), results: v.array(inboxResultSchema) });

/** One day of the audit log. */
export const inboxLogViewSchema = v.object({
  date: text,
  path: text,
  entries: v.array(v.object({ time: text, source: text, decision: text, executed: text })),
  problems: optional(v.array(inboxDiagnosticSchema)),
});

const hunkSide = v.object({ start: count, lines: texts });

/** A path an accept left alone, and why. */
export const conflictInfoSchema = v.object({
  path: text,
  reason: text,
  detail: optional(text),
  hunks: v.array(v.object({ ours: hunkSide, base: hunkSide, theirs: hunkSide })),
});

const applied = v.array(v.object({ path: text, how: v.picklist(['fast-forward', 'merged', 'already', 'forced']) }));

/** The outcome of an accept, `ok` exactly when nothing conflicted. */
export const acceptOutcomeSchema = v.variant('ok', [
  v.object({ ok: v.literal(true), applied, conflicts: v.strictTuple([]), agent: agentInfoSchema }),
  v.object({ ok: v.literal(false), applied, conflicts: v.tupleWithRest([conflictInfoSchema], conflictInfoSchema), agent: agentInfoSchema }),
]);

/** What one accept of a queue came to. */
export const acceptItemSchema = v.variant('status', [
  v.object({ id: text, status: v.literal('accepted'), applied, agent: agentInfoSchema }),
  v.object({ id: text, status: v.literal('conflict'), applied, conflicts: v.array(conflictInfoSchema), agent: agentInfoSchema }),
  v.object({ id: text, status: v.literal('checks-failed'), message: text, checks: v.array(checkResultInfoSchema) }),
  v.object({ id: text, status: v.literal('refused'), code: text, message: text, hint: optional(text) }),
  v.object({ id: text, status: v.literal('left') }),
]);

/** Accepts queued in turn, `ok` exactly when every one went in. */
export const acceptManyOutcomeSchema = v.object({ ok: v.boolean(), accepts: v.array(acceptItemSchema) });

const undoConflict = v.object({ path: text, reason: text });

/** The outcome of an undo, `ok` exactly when nothing the human changed since was in the way. */
export const undoOutcomeSchema = v.variant('ok', [
  v.object({ ok: v.literal(true), restored: texts, conflicts: v.strictTuple([]), agent: agentInfoSchema }),
  v.object({ ok: v.literal(false), restored: texts, conflicts: v.tupleWithRest([undoConflict], undoConflict), agent: agentInfoSchema }),
]);

const replayCounts = { entries: count, runs: count, changesHash: text, recordedChangesHash: text };

/** The outcome of a replay: the recorded run reproduced, or the first difference. */
export const replayOutcomeSchema = v.variant('ok', [
  v.object({ ...replayCounts, ok: v.literal(true) }),
  v.object({
    ...replayCounts,
    ok: v.literal(false),
    divergence: v.object({ seq: count, reason: text, expected: optional(v.unknown()), actual: optional(v.unknown()) }),
  }),
]);

/** What `collect` deleted for good. */
export const collectOutcomeSchema = v.object({ collected: v.array(v.object({ agentId: text, retiredAt: text })) });

/** An entry the import leaves out. */
export const skippedEntrySchema = v.object({ path: text, reason: text });

/** What a sync did. */
export const syncSummarySchema = v.object({
  files: count,
  added: count,
  updated: count,
  removed: count,
  unchanged: count,
  bytes: count,
  ms: count,
  skipped: optional(v.array(skippedEntrySchema)),
});

const journalRow = v.object({
  seq: count,
  time: text,
  kind: text,
  effect: optional(text),
  path: optional(text),
  decision: optional(text),
  bytes: optional(count),
  tokens: optional(count),
  detail: optional(text),
});

/** An agent's journal as a table, with the outcome of verifying its chain. */
export const journalViewSchema = v.object({
  agentId: text,
  rows: v.array(journalRow),
  entries: count,
  verified: v.boolean(),
  broken: optional(v.object({ seq: count, reason: text })),
  interrupted: optional(v.object({ rows: v.array(journalRow), entries: count, verified: v.boolean() })),
});

const agentEvent = { time: text, agentId: text };

/** Every event the orchestrator reports, told apart by `type`. */
export const cairnEventSchema = v.variant('type', [
  v.object({ ...agentEvent, type: v.literal('agent.queued'), task: text }),
  v.object({ ...agentEvent, type: v.literal('agent.started'), run: count, again: optional(v.literal(true)) }),
  v.object({ ...agentEvent, type: v.literal('agent.generating'), model: text, round: count }),
  v.object({ ...agentEvent, type: v.literal('agent.repairing'), round: count, problem: text }),
  v.object({
    ...agentEvent,
    type: v.literal('agent.tool-called'),
    tool: text,
    path: optional(text),
    pattern: optional(text),
    ok: v.boolean(),
    message: optional(text),
  }),
  v.object({ ...agentEvent, type: v.literal('agent.denied'), tool: text, effect: text, path: optional(text), reason: text }),
  v.object({ ...agentEvent, type: v.literal('agent.log'), message: text }),
  v.object({ ...agentEvent, type: v.literal('agent.submitted'), summary: text, changes: v.array(changeInfoSchema) }),
  v.object({
    ...agentEvent,
    type: v.literal('agent.accepted'),
    applied: texts,
    conflicts: v.array(conflictInfoSchema),
    state: agentStateSchema,
  }),
  v.object({ ...agentEvent, type: v.literal('agent.undone'), restored: texts }),
  v.object({ ...agentEvent, type: v.literal('agent.rejected'), reason: text }),
  v.object({ ...agentEvent, type: v.literal('agent.restored') }),
  v.object({ ...agentEvent, type: v.literal('agent.replied'), feedback: text }),
  v.object({ ...agentEvent, type: v.literal('agent.failed'), code: text, reason: text }),
  v.object({ ...agentEvent, type: v.literal('agent.requeued'), reason: text }),
  v.object({ ...agentEvent, type: v.literal('agent.waiting'), reason: text, hint: text, then: v.picklist(['wait', 'run-here']) }),
  v.object({ ...agentEvent, type: v.literal('agent.decided'), reviews: text, decision: text, note: text, thread: optional(text) }),
  v.object({
    ...agentEvent,
    type: v.literal('accept.waiting'),
    for: v.picklist(['turn', 'checks']),
    ahead: optional(count),
    checks: optional(texts),
  }),
  v.object({ ...agentEvent, type: v.literal('check.started'), name: text }),
  v.object({ ...agentEvent, type: v.literal('check.finished'), result: checkResultInfoSchema }),
  v.object({ time: text, type: v.literal('inbox.received'), agentId: text, thread: text }),
  v.object({ time: text, type: v.literal('inbox.processed'), agentId: optional(text), result: inboxResultSchema }),
  v.object({
    time: text,
    type: v.literal('inbox.invalid'),
    agentId: optional(text),
    thread: text,
    diagnostics: v.array(inboxDiagnosticSchema),
  }),
  v.object({
    time: text,
    type: v.literal('sync.progress'),
    phase: v.picklist(['scan', 'import', 'prune']),
    done: count,
    total: count,
    bytes: count,
  }),
  v.object({ time: text, type: v.literal('sync.changed'), paths: texts }),
  v.object({ time: text, type: v.literal('error'), agentId: optional(text), code: text, message: text }),
]);

/** Who the daemon is: what `GET /health` says besides `ok`. */
export const daemonIdentitySchema = v.object({ pid: count, root: text, version: text, startedAt: text });

/** What the daemon answers besides the API: who it is. */
export type DaemonIdentity = v.InferOutput<typeof daemonIdentitySchema>;

/** The answer of `GET /health`. */
export const daemonHealthSchema = v.object({ ok: v.boolean(), ...daemonIdentitySchema.entries });

/** The answer of `GET /health`: the daemon's identity, and that it is well. */
export type DaemonHealth = v.InferOutput<typeof daemonHealthSchema>;

/** The answer of `POST /shutdown`. */
export const shutdownAnswerSchema = v.object({ ok: v.boolean() });

/** The first line of the event stream, before any event. */
export const helloLineSchema = v.object({ type: v.literal('hello'), time: text, pid: count });

/** The body of every error answer. */
export const errorBodySchema = v.object({ code: text, message: text, hint: optional(text) });
