import type {
  AcceptItem,
  AcceptManyOutcome,
  AcceptOutcome,
  AgentInfo,
  AgentState,
  CairnEvent,
  ChangeInfo,
  CollectOutcome,
  ConflictInfo,
  FileProposal,
  InboxDiagnostic,
  InboxLogView,
  InboxProcessOutcome,
  InboxResult,
  InboxThread,
  JournalView,
  ReplayOutcome,
  SyncSummary,
  UndoOutcome,
} from '@cairn/api';
import type * as v from 'valibot';
import type {
  acceptItemSchema,
  acceptManyOutcomeSchema,
  acceptOutcomeSchema,
  agentInfoSchema,
  agentStateSchema,
  cairnEventSchema,
  changeInfoSchema,
  collectOutcomeSchema,
  conflictInfoSchema,
  fileProposalSchema,
  inboxDiagnosticSchema,
  inboxLogViewSchema,
  inboxProcessOutcomeSchema,
  inboxResultSchema,
  inboxThreadSchema,
  journalViewSchema,
  replayOutcomeSchema,
  syncSummarySchema,
  undoOutcomeSchema,
} from './wire-schemas.js';

// Fails `tsc` (the package's typecheck) when a schema of wire-schemas.ts and the public type it stands for differ.

/** The type with every optional key made required, all the way down (unions distribute, tuples stay tuples). */
type Strict<T> = T extends readonly unknown[]
  ? { [K in keyof T]: Strict<T[K]> }
  : T extends object
    ? { [K in keyof T]-?: Strict<T[K]> }
    : T;

/** True when each type is assignable to the other. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * True when A and B are the same shape: assignable both ways as they are (so an optional key is optional on
 * both sides) and with every optional key required (so a key that only one side has is caught).
 */
type Same<A, B> = Mutual<A, B> extends true ? Mutual<Strict<A>, Strict<B>> : false;

type Agrees<S extends v.GenericSchema, T> = Same<v.InferOutput<S>, T>;

/** Compiles only when every item is `true`. */
type AllTrue<T extends readonly true[]> = T;

/** Each schema of the wire against its public type. */
export type WireSchemasAgree = AllTrue<
  [
    Agrees<typeof agentStateSchema, AgentState>,
    Agrees<typeof changeInfoSchema, ChangeInfo>,
    Agrees<typeof agentInfoSchema, AgentInfo>,
    Agrees<typeof fileProposalSchema, FileProposal>,
    Agrees<typeof inboxDiagnosticSchema, InboxDiagnostic>,
    Agrees<typeof inboxThreadSchema, InboxThread>,
    Agrees<typeof inboxResultSchema, InboxResult>,
    Agrees<typeof inboxProcessOutcomeSchema, InboxProcessOutcome>,
    Agrees<typeof inboxLogViewSchema, InboxLogView>,
    Agrees<typeof conflictInfoSchema, ConflictInfo>,
    Agrees<typeof acceptOutcomeSchema, AcceptOutcome>,
    Agrees<typeof acceptItemSchema, AcceptItem>,
    Agrees<typeof acceptManyOutcomeSchema, AcceptManyOutcome>,
    Agrees<typeof undoOutcomeSchema, UndoOutcome>,
    Agrees<typeof replayOutcomeSchema, ReplayOutcome>,
    Agrees<typeof collectOutcomeSchema, CollectOutcome>,
    Agrees<typeof syncSummarySchema, SyncSummary>,
    Agrees<typeof journalViewSchema, JournalView>,
    Agrees<typeof cairnEventSchema, CairnEvent>,
  ]
>;

/** The check itself can fail: a type with a key the schema lacks, or one optional on one side only, is told apart. */
export type SameCatchesDrift = AllTrue<
  [
    Mutual<Same<{ a: string }, { a: string; b?: number }>, false>,
    Mutual<Same<{ a: string; b?: number }, { a: string; b: number }>, false>,
    Mutual<Same<{ a: 'x' | 'y' }, { a: 'x' }>, false>,
    Mutual<Same<{ k: 'a'; n: number } | { k: 'b' }, { k: 'a'; n: number } | { k: 'b'; m?: string }>, false>,
  ]
>;
