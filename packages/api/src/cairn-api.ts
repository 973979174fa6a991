import type { AcceptManyOptions, AcceptManyOutcome, AcceptOptions, AcceptOutcome } from './accept-outcomes.js';
import type { AgentFilter, AgentInfo } from './agent-info.js';
import type { ReviewOptions, SpawnOptions } from './agent-options.js';
import type { AgentState } from './agent-states.js';
import type { CheckOutput, CheckResultInfo } from './check-results.js';
import type { CollectOutcome } from './collect-outcome.js';
import type { CairnEvent } from './events.js';
import type { InboxLogView, InboxProcessOutcome, InboxThread } from './inbox-types.js';
import type { JournalView } from './journal-view.js';
import type { ChangeInfo, FileProposal } from './proposal-changes.js';
import type { ReplayOutcome } from './replay-outcome.js';
import type { SkippedEntryInfo, SyncSummary } from './sync-summary.js';
import type { UndoOutcome } from './undo-outcome.js';

/** Options of `events()` and `subscribe()`. */
export interface EventOptions {
  /** Only this agent's events. */
  agentId?: string;
  /** Stop after the first event matching this (inclusive). */
  until?: (event: CairnEvent) => boolean;
}

/**
 * The orchestrator's API. The in-process project and the daemon's client both implement it, so the CLI and
 * the Neovim bridge never care whether a daemon runs. Expected outcomes are data; misuse throws `CairnError`.
 */
export interface CairnApi {
  readonly root: string;
  /** Brings stable.db up to date with the working tree (an incremental import). */
  sync(): Promise<SyncSummary>;
  /** What the imports left out of stable.db (unreadable entries, names that are not UTF-8), in path order. */
  skipped(): Promise<SkippedEntryInfo[]>;
  /** Creates an agent and starts it as soon as a slot is free, ahead of queued ones. */
  spawn(task: string, options?: SpawnOptions): Promise<AgentInfo>;
  /** Creates an agent at the back of the queue. */
  queue(task: string, options?: SpawnOptions): Promise<AgentInfo>;
  agents(filter?: AgentFilter): Promise<AgentInfo[]>;
  agent(id: string): Promise<AgentInfo>;
  changes(id: string): Promise<ChangeInfo[]>;
  /** Git-style unified diff of the proposal (or of the given paths). */
  diff(id: string, paths?: readonly string[]): Promise<string>;
  /** The proposed content of one file, or null where the agent deleted it. */
  proposed(id: string, path: string): Promise<string | null>;
  /** One changed file's merge base and proposed text, for showing the proposal over an editor's buffer. */
  proposal(id: string, path: string): Promise<FileProposal>;
  /**
   * Merges the proposal (or the given paths) into stable.db and the working tree. All or nothing by default:
   * when a path conflicts nothing is applied; `partial` applies what merges cleanly, `force` takes the agent's side.
   */
  accept(id: string, options?: AcceptOptions): Promise<AcceptOutcome>;
  /**
   * Accepts several proposals in turn through the project's one accept queue: each merged onto the tree the one
   * before left, once its automatic checks passed there (waited for while they run; `force` skips them). The
   * first that does not go in stops the rest (`left`), unless `keepGoing`.
   */
  acceptMany(ids: readonly string[], options?: AcceptManyOptions): Promise<AcceptManyOutcome>;
  undo(id: string, options?: { force?: boolean }): Promise<UndoOutcome>;
  reject(id: string, reason?: string): Promise<AgentInfo>;
  restore(id: string): Promise<AgentInfo>;
  /** Sends feedback to a reviewing agent, which revises its proposal in the same overlay (`do:reply`). */
  reply(id: string, feedback: string): Promise<AgentInfo>;
  replay(id: string): Promise<ReplayOutcome>;
  /** Starts a reviewer agent on a reviewing agent's proposal: it may read and `decide`, nothing else. */
  review(id: string, options?: ReviewOptions): Promise<AgentInfo>;
  /** The review inbox's threads (`all`: with those processed into `done/`). */
  inbox(options?: { all?: boolean }): Promise<InboxThread[]>;
  /** Carries out every decided thread (or the named ones) under the protocol, each decision once. */
  processInbox(options?: { threads?: readonly string[] }): Promise<InboxProcessOutcome>;
  /** One day of the audit log (`YYYY-MM-DD`, default today in UTC). */
  inboxLog(date?: string): Promise<InboxLogView>;
  journal(id: string): Promise<JournalView>;
  /** The project's checks on an agent's proposal: pending, passed, failed (exit N), timed out, error, or stale. */
  checks(id: string): Promise<CheckResultInfo[]>;
  /** One check's result with the output it printed (at most the check's output cap). */
  checkOutput(id: string, name: string): Promise<CheckOutput>;
  /** Runs the named checks (default: all declared) on a proposal now, and resolves with their results. */
  runChecks(id: string, names?: readonly string[]): Promise<CheckResultInfo[]>;
  /** The agent's recent lifecycle events (queued, started, denied, submitted, accepted, …), oldest first. */
  history(id: string, limit?: number): Promise<CairnEvent[]>;
  /** Deletes rejected overlays retired at least `olderThanMs` ago. */
  collect(olderThanMs: number): Promise<CollectOutcome>;
  /** Resolves when the agent is in one of `states` (default: reviewing, accepted, rejected, failed). */
  wait(id: string, states?: readonly AgentState[]): Promise<AgentInfo>;
  /** Every event from now on, until the iterator is closed. */
  events(options?: EventOptions): AsyncIterable<CairnEvent>;
  /** The same events as `events`, once the stream is open: resolves when nothing emitted after it can be missed. */
  subscribe(options?: EventOptions): Promise<AsyncIterator<CairnEvent>>;
  close(): Promise<void>;
}
