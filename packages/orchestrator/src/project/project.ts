import { skippedEntries } from '@cairn/agentfs';
import type {
  AcceptManyOptions,
  AcceptManyOutcome,
  AcceptOptions,
  AcceptOutcome,
  AgentFilter,
  AgentInfo,
  AgentState,
  CairnApi,
  CairnEvent,
  ChangeInfo,
  CheckOutput,
  CheckResultInfo,
  CollectOutcome,
  EventOptions,
  ExecSpec,
  FileProposal,
  InboxLogView,
  InboxProcessOutcome,
  InboxThread,
  JournalView,
  ReplayOutcome,
  ReviewOptions,
  SkippedEntryInfo,
  SpawnOptions,
  SyncSummary,
  UndoOutcome,
} from '@cairn/api';
import { CairnError, parseAgentStates, parseExecSpec } from '@cairn/api';
import type { Actor } from '@cairn/triage';
import type { ProjectLayout } from '@cairn/workspace';
import type { AgentCommands } from '../agents/agent-commands.js';
import { toAgentInfo } from '../agents/agent-info.js';
import type { SessionOpener } from '../agents/agent-session.js';
import type { CheckService } from '../agents/check-service.js';
import { requestSync } from '../agents/exec-sync.js';
import type { ProjectCore } from '../agents/project-core.js';
import { changesOf, diffOf, fileProposalOf, journalOf, proposedText } from '../agents/proposal-reader.js';
import type { Scheduler } from '../agents/scheduler.js';
import { requestStop } from '../agents/stop-request.js';
import { waitForAgent } from '../agents/wait-for-agent.js';
import type { EventBus } from '../events/event-bus.js';
import type { InboxService } from '../inbox/inbox-service.js';
import { replayAgent } from '../replay/replay.js';
import type { AcceptQueue } from '../review/accept-queue.js';
import { collectRejected, rejectAgent, restoreAgent } from '../review/retire.js';
import { undoAccepts } from '../review/undo.js';
import { syncProject } from '../sync/sync.js';
import { type ProjectWatcher, watchProject } from '../sync/watcher.js';
import { checkProjectSettings } from './project-settings.js';
import type { RecordObservers } from './record-observers.js';

/** The services `openProject` wires for a project, which the facade calls. */
export interface ProjectParts {
  core: ProjectCore;
  bus: EventBus;
  scheduler: Scheduler;
  commands: AgentCommands;
  inbox: InboxService;
  checks: CheckService;
  accepts: AcceptQueue;
  observers: RecordObservers;
  person: Actor;
  sessions: SessionOpener;
  closeSandbox(): Promise<void>;
  /** Lets go of what the project was opened on, once its databases are closed (a read-only copy). */
  release?(): void;
}

/** A project opened in this process: the orchestrator's API, run in-process. Made by `openProject`. */
export class Project implements CairnApi {
  readonly root: string;
  readonly layout: ProjectLayout;
  /** The person using this process: who `accept`/`reject` decide as and who owns what it spawns. */
  readonly person: Actor;
  private readonly core: ProjectCore;
  private closed = false;

  constructor(private readonly parts: ProjectParts) {
    this.core = parts.core;
    this.layout = parts.core.layout;
    this.root = this.layout.root;
    this.person = parts.person;
  }

  async sync(): Promise<SyncSummary> {
    return movedUnderProposals(this.parts.checks, await syncProject(this.open()));
  }

  async skipped(): Promise<SkippedEntryInfo[]> {
    return skippedEntries(this.open().stable);
  }

  async spawn(task: string, options?: SpawnOptions): Promise<AgentInfo> {
    this.open();
    checkProjectSettings(this.layout);
    return this.parts.commands.create(task, options, true);
  }

  async queue(task: string, options?: SpawnOptions): Promise<AgentInfo> {
    this.open();
    checkProjectSettings(this.layout);
    return this.parts.commands.create(task, options, false);
  }

  async agents(filter: AgentFilter = {}): Promise<AgentInfo[]> {
    return this.open()
      .store.list(filter.state === undefined ? undefined : parseAgentStates(filter.state))
      .map((record) => this.withChecks(toAgentInfo(record)));
  }

  async agent(id: string): Promise<AgentInfo> {
    return this.withChecks(toAgentInfo(this.open().store.require(id)));
  }

  async checks(id: string): Promise<CheckResultInfo[]> {
    return this.open().store.require(id) && this.parts.checks.infos(id);
  }

  async checkOutput(id: string, name: string): Promise<CheckOutput> {
    const stored = this.open() && this.parts.checks.result(id, name);
    return { result: stored.info, output: stored.output.toString('utf8') };
  }

  async runChecks(id: string, names?: readonly string[]): Promise<CheckResultInfo[]> {
    return this.open() && this.parts.checks.run(id, names);
  }

  async changes(id: string): Promise<ChangeInfo[]> {
    return changesOf(this.open(), id);
  }

  async diff(id: string, paths?: readonly string[]): Promise<string> {
    return diffOf(this.open(), id, paths);
  }

  async proposed(id: string, path: string): Promise<string | null> {
    return proposedText(this.open(), id, path);
  }

  async proposal(id: string, path: string): Promise<FileProposal> {
    return fileProposalOf(this.open(), id, path);
  }

  async accept(id: string, options: AcceptOptions = {}): Promise<AcceptOutcome> {
    return this.open() && this.parts.inbox.noteAccept(id, await this.parts.accepts.acceptOne(id, options));
  }

  async acceptMany(ids: readonly string[], options: AcceptManyOptions = {}): Promise<AcceptManyOutcome> {
    this.open();
    const outcome = await this.parts.accepts.acceptMany(ids, options);
    for (const item of outcome.accepts)
      if (item.status === 'accepted' || item.status === 'conflict') this.parts.inbox.noteAccept(item.id, item);
    return outcome;
  }

  async undo(id: string, options: { force?: boolean } = {}): Promise<UndoOutcome> {
    return undoAccepts(this.open(), id, options);
  }

  async reject(id: string, reason?: string): Promise<AgentInfo> {
    const core = this.open();
    // a running agent is stopped first (its model request aborted), then rejected from where it stopped: at once
    // when this process runs it, else by asking the process that does through its record
    if (core.store.require(id).state === 'running' && !(await core.running.stop(id, 'rejected')))
      await requestStop(core.store, id, 'rejected');
    // a run that has just ended here may not have closed the overlay yet: it is moved only once closed
    await core.running.ended(id);
    return this.parts.inbox.noteReject(rejectAgent(core, id, reason));
  }

  async restore(id: string): Promise<AgentInfo> {
    return restoreAgent(this.open(), id);
  }

  /** Runs a command again in a reviewing agent's view (`cairn run ID -- CMD`), in this process. */
  async runAgain(id: string, exec: ExecSpec): Promise<AgentInfo> {
    return this.open() && this.parts.commands.runAgain(id, parseExecSpec(exec));
  }

  /** Takes what a running agent CLI wrote so far into its overlay, in whichever process runs it (`cairn run ID --sync`). */
  async syncRun(id: string): Promise<string> {
    return requestSync(this.open().store, id);
  }

  async reply(id: string, feedback: string): Promise<AgentInfo> {
    return this.open() && this.parts.commands.reply(id, feedback);
  }

  async review(id: string, options: ReviewOptions = {}): Promise<AgentInfo> {
    return this.open() && toAgentInfo(this.parts.inbox.startReviewer(id, options));
  }

  async inbox(options: { all?: boolean } = {}): Promise<InboxThread[]> {
    return this.open() && this.parts.inbox.list(options.all === true);
  }

  async processInbox(options: { threads?: readonly string[] } = {}): Promise<InboxProcessOutcome> {
    return this.open() && this.parts.inbox.process(options.threads);
  }

  async inboxLog(date?: string): Promise<InboxLogView> {
    return this.open() && this.parts.inbox.log(date);
  }

  async replay(id: string): Promise<ReplayOutcome> {
    return replayAgent(this.open(), id);
  }

  async journal(id: string): Promise<JournalView> {
    return journalOf(this.open(), id);
  }

  async history(id: string, limit = 20): Promise<CairnEvent[]> {
    const { store } = this.open();
    return store.require(id) && (store.recentEvents(id, limit) as CairnEvent[]);
  }

  async collect(olderThanMs: number): Promise<CollectOutcome> {
    return collectRejected(this.open(), olderThanMs);
  }

  async wait(id: string, states?: readonly AgentState[]): Promise<AgentInfo> {
    return waitForAgent(this.open().store, this.parts.bus, id, states === undefined ? undefined : parseAgentStates(states));
  }

  events(options: EventOptions = {}): AsyncIterable<CairnEvent> {
    const { agentId } = options;
    return this.parts.bus.stream(agentId === undefined ? () => true : (e) => 'agentId' in e && e.agentId === agentId, options.until);
  }

  async subscribe(options: EventOptions = {}): Promise<AsyncIterator<CairnEvent>> {
    return this.open() && this.events(options)[Symbol.asyncIterator]();
  }

  /** Watches the working tree and applies each human edit to stable.db (what the daemon runs). */
  watch(options: { debounceMs?: number } = {}): ProjectWatcher {
    const watcher = watchProject(this.open(), options);
    // the first import catches up with what moved while nothing watched
    return { ...watcher, ready: watcher.ready.then((summary) => movedUnderProposals(this.parts.checks, summary)) };
  }

  /** The environments MCP clients open in this process (`cairn mcp`): agents whose work is the client's calls. */
  get sessions(): SessionOpener {
    return this.open() && this.parts.sessions;
  }

  /** Reports an event of a part running beside the project (the daemon's signals) to every listener. */
  notify(event: CairnEvent): void {
    this.core.emit(event);
  }

  /** Starts the sandbox's first child now, to boot while this process does other work (the sync before a spawn). */
  prepareToRun(): void {
    this.open().sandbox();
  }

  /** The checks this process runs or holds waiting for a slot (without a daemon, a command waits for them as it closes). */
  runningChecks(): { agentId: string; name: string }[] {
    return this.parts.checks.running();
  }

  /** Resolves when this process runs no check any more. */
  async checksIdle(): Promise<void> {
    await this.parts.checks.idle();
  }

  /** Kills the checks this process runs and marks their results stale, for a later run to take up. */
  async stopChecks(): Promise<void> {
    await this.parts.checks.stop({ stale: true });
  }

  /** Runs every queued agent (a daemon's scope), now and whenever one frees a slot. */
  startQueue(): void {
    this.parts.scheduler.kick();
  }

  /** Starts no queued agent any more (a daemon that stops); those running go on until `close`. */
  stopQueue(): void {
    this.parts.scheduler.stop();
  }

  /**
   * Waits for the agents running in this process (and its checks, unless it runs every agent: a daemon kills
   * them, to run them again when it next opens), then closes the stores, the sandbox and every event stream.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    const { scheduler, inbox, observers, bus, accepts } = this.parts;
    accepts.close();
    await this.parts.sessions.closeAll('the server stopped');
    scheduler.stop();
    await scheduler.idle();
    await inbox.idle();
    // a project that runs every agent (a daemon) runs interrupted checks again when it next opens: it need not wait
    if (this.core.rerunsInterrupted) await this.parts.checks.stop();
    else await this.parts.checks.idle();
    this.closed = true;
    observers.flush();
    observers.stop();
    bus.close();
    await this.parts.closeSandbox();
    this.core.store.close();
    this.core.stable.close();
    this.parts.release?.();
  }

  private withChecks(info: AgentInfo): AgentInfo {
    const checks = this.parts.checks.infos(info.id);
    if (checks.length > 0) info.checks = checks;
    return info;
  }

  /** The project's core, or `CAIRN_CLOSED` once it is closed. */
  private open(): ProjectCore {
    if (this.closed) throw new CairnError('CAIRN_CLOSED', 'the project is closed');
    return this.core;
  }
}

/** After an import: when the working tree moved under every proposal, their check results no longer hold. */
function movedUnderProposals(checks: CheckService, summary: SyncSummary): SyncSummary {
  if (summary.added + summary.updated + summary.removed > 0) checks.workingTreeMoved();
  return summary;
}
