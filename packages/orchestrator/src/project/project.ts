import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AgentFS, isAgentFSError, type Overlay, SqliteJournalStore, stateOf } from '@cairn/agentfs';
import { createSandbox, type Sandbox } from '@cairn/sandbox';
import { ReceiptSigner } from '../governance/receipt-signer.js';
import { toAgentInfo } from '../agents/agent-info.js';
import { claimOrphan, INTERRUPTED, interruptedJournal, mayRerun, restartOverlay } from '../agents/interrupted.js';
import { runAgent } from '../agents/agent-runner.js';
import type { AgentRecord, AgentStore } from '../agents/agent-store.js';
import { Scheduler, type QueueScope } from '../agents/scheduler.js';
import { writeStateSnapshot } from '../workspace/state-snapshot.js';
import { CairnError, isCairnError } from '../api/errors.js';
import type { CairnEvent } from '../api/events.js';
import { EventBus } from '../events/event-bus.js';
import { compileGovernance } from '../governance/compile.js';
import { defaultGovernance, type GovernanceSource } from '../governance/default-manifest.js';
import { loadProjectGovernance, tightenGovernance } from '../governance/project-manifest.js';
import { projectLayout, type ProjectLayout } from '../workspace/layout.js';
import { createModelClient, type ModelClient } from '../model/ollama-client.js';
import type { ProjectCore } from '../agents/project-core.js';
import { acceptProposal, projectPath } from '../review/accept.js';
import { withAgentOverlay } from '../workspace/agent-overlay.js';
import { openAgentStore } from '../agents/bin-damage.js';
import { readFileProposal } from '../workspace/file-proposal.js';
import { recoverPendingWrites } from '../review/complete-operation.js';
import { journalRows, verifyJournal } from '../review/journal-view.js';
import { removePreview, writePreview } from '../workspace/previews.js';
import { collectRejected, rejectAgent, restoreAgent } from '../review/retire.js';
import { undoAccepts } from '../review/undo.js';
import { replayAgent } from '../replay/replay.js';
import { syncProject } from '../sync/sync.js';
import { watchProject, type ProjectWatcher } from '../sync/watcher.js';
import { processAlive } from '../workspace/process-alive.js';
import { currentPerson } from '../inbox/actors.js';
import { auditPath, readAudit } from '../inbox/audit.js';
import { Inbox } from '../inbox/inbox.js';
import { loadInboxSettings } from '../inbox/inbox-settings.js';
import { decisionCarriedOut } from '../inbox/outcomes.js';
import { processThread, type InboxExecutor, type ProcessContext } from '../inbox/process-inbox.js';
import { oneLine, threadNames } from '../inbox/thread-file.js';
import { parseAuditLog, parseReason, parseTriage, triage, type Actor, type Triage } from '@cairn/triage';
import type { ProposalForReview } from '../run/run-context.js';
import type {
  AcceptOptions,
  AcceptOutcome,
  AgentBudgets,
  AgentFilter,
  AgentInfo,
  AgentLimits,
  AgentState,
  ChangeInfo,
  FileProposal,
  CollectOutcome,
  InboxLogView,
  InboxProcessOutcome,
  InboxResult,
  InboxThread,
  ReviewOptions,
  JournalView,
  ReplayOutcome,
  SpawnOptions,
  SyncSummary,
  UndoOutcome,
} from '../api/types.js';
import type { CairnApi, EventOptions } from '../api/cairn-api.js';

/** The model a model-written agent uses unless told otherwise. */
export const DEFAULT_MODEL = 'qwen2.5-coder:7b';

/** Limits of one program run, unless a spawn sets its own. */
export const DEFAULT_LIMITS: AgentLimits = { wallMs: 60_000, cpuMs: 30_000, memoryMb: 128 };

/** What an agent may spend over its life, unless a spawn sets its own. */
export const DEFAULT_BUDGETS: AgentBudgets = { tokens: 200_000, bytes: 64 * 1024 * 1024, calls: 10_000, wallMs: 15 * 60_000, repairs: 3 };

/** Options of `openProject`. */
export interface ProjectOptions {
  /** `$CAIRN_HOME` (default: the environment's, or `~/.cairn`). */
  cairnHome?: string;
  /** Agents running at once in this process (default 3). */
  poolSize?: number;
  /** `all`: run every queued agent (a daemon); `own` (default): only those this process created; `none`: none. */
  queue?: QueueScope;
  /** Ollama's address (default: `OLLAMA_HOST`, or `http://127.0.0.1:11434`). */
  ollamaHost?: string;
  /** How long one model answer may take (ms). */
  modelTimeoutMs?: number;
  defaultModel?: string;
  /** Milliseconds since the epoch (injected by tests). */
  clock?: () => number;
}

/**
 * Opens a project for agents: creates `.agentfs/` on first use, finishes any accept a killed process left
 * half done, and marks agents whose process died while they ran as failed (`interrupted`).
 */
export function openProject(root: string, options: ProjectOptions = {}): Project {
  return new Project(resolve(root), options);
}

/** A project opened in this process: the orchestrator's API, run in-process. */
export class Project implements CairnApi {
  readonly root: string;
  readonly layout: ProjectLayout;
  private readonly core: ProjectCore;
  private readonly bus = new EventBus();
  private readonly scheduler: Scheduler;
  private readonly stable: AgentFS;
  private readonly store: AgentStore;
  private sandboxInstance: Sandbox | undefined;
  private modelInstance: ModelClient | undefined;
  private snapshotDue = false;
  private closed = false;
  private readonly inboxState: Inbox;
  /** The person using this process: who `accept`/`reject` decide as and who owns what it spawns. */
  readonly person: Actor = currentPerson();
  private inboxChain: Promise<unknown> = Promise.resolve();

  constructor(
    root: string,
    private readonly options: ProjectOptions,
  ) {
    this.root = root;
    this.layout = projectLayout(root, options.cairnHome);
    requireDirectory(root);
    prepareAgentfsDir(this.layout);
    const clock = options.clock ?? Date.now;
    this.stable = openStable(this.layout);
    this.store = openAgentStore(this.layout.binPath, clock);
    const signer = ReceiptSigner.forProject(this.layout.receiptKeyPath);
    const owner = `${process.pid}:${randomBytes(4).toString('hex')}`;
    this.core = {
      layout: this.layout,
      stable: this.stable,
      store: this.store,
      signer,
      clock,
      owner,
      rerunsInterrupted: options.queue === 'all',
      defaultModel: options.defaultModel ?? DEFAULT_MODEL,
      sandbox: () => (this.sandboxInstance ??= createSandbox({ poolSize: this.poolSize })),
      modelClient: () =>
        (this.modelInstance ??= createModelClient({
          ...(options.ollamaHost === undefined ? {} : { host: options.ollamaHost }),
          ...(options.modelTimeoutMs === undefined ? {} : { timeoutMs: options.modelTimeoutMs }),
        })),
      emit: (event) => this.emit(event),
      governanceFor: (record) => this.governanceFor(record),
      recordChanged: (record) => this.recordChanged(record),
      proposalForReview: (agentId) => this.proposalForReview(agentId),
      reviewerDecided: (reviewer, decision) => {
        const parsed = parseTriageOrThrow(decision.decision);
        return this.inboxState.writeDecision(reviewer.reviews ?? '', parsed, (reviewer.actor ?? reviewer.id) as Actor, decision.note);
      },
      afterDecision: async (thread) => {
        await this.processInbox({ threads: [thread] });
      },
    };
    this.inboxState = new Inbox({ layout: this.layout, store: this.store, clock, owner, emit: (event) => this.emit(event) });
    this.scheduler = new Scheduler(
      this.poolSize,
      options.queue ?? 'own',
      () => this.store.queued().map((a) => a.id),
      (id) => runAgent(this.core, id),
    );
    recoverPendingWrites(this.core);
    this.recoverOrphans();
    this.scheduler.kick();
  }

  private get poolSize(): number {
    const size = this.options.poolSize ?? 3;
    if (!Number.isSafeInteger(size) || size < 1)
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `the pool size must be a positive integer (got ${String(size)})`);
    return size;
  }

  async sync(): Promise<SyncSummary> {
    this.assertOpen();
    return syncProject(this.core);
  }

  async spawn(task: string, options: SpawnOptions = {}): Promise<AgentInfo> {
    return this.create(task, options, true);
  }

  async queue(task: string, options: SpawnOptions = {}): Promise<AgentInfo> {
    return this.create(task, options, false);
  }

  private create(task: string, options: SpawnOptions, front: boolean): AgentInfo {
    this.assertOpen();
    const fields = parseSpawn(task, options);
    compileGovernance(this.governanceFor(fields));
    const record = this.store.create({ ...fields, createdBy: this.person }, front);
    this.emit({ type: 'agent.queued', time: iso(record.createdAt), agentId: record.id, task: record.task });
    this.recordChanged(record);
    this.scheduler.adopt(record.id);
    this.scheduler.kick();
    return toAgentInfo(this.store.require(record.id));
  }

  async agents(filter: AgentFilter = {}): Promise<AgentInfo[]> {
    this.assertOpen();
    const states = filter.state === undefined ? undefined : typeof filter.state === 'string' ? [filter.state] : [...filter.state];
    return this.store.list(states).map(toAgentInfo);
  }

  async agent(id: string): Promise<AgentInfo> {
    this.assertOpen();
    return toAgentInfo(this.store.require(id));
  }

  async changes(id: string): Promise<ChangeInfo[]> {
    return this.withOverlay(id, (overlay) => overlay.changes().map((c) => ({ path: c.path, status: c.status, kind: c.kind })));
  }

  async diff(id: string, paths?: readonly string[]): Promise<string> {
    const wanted = paths?.map(projectPath);
    return this.withOverlay(id, (overlay) => overlay.diff(wanted));
  }

  async proposed(id: string, path: string): Promise<string | null> {
    const at = '/' + projectPath(path);
    return this.withOverlay(id, (overlay) => {
      const state = stateOf(overlay.fs, at);
      if (state.kind === 'absent') return null;
      if (state.kind !== 'file')
        throw new CairnError('CAIRN_INVALID_ARGUMENT', `${path} is a ${state.kind === 'dir' ? 'directory' : 'symbolic link'}, not a file`);
      return state.content.toString('utf8');
    });
  }

  async proposal(id: string, path: string): Promise<FileProposal> {
    const relative = projectPath(path);
    return this.withOverlay(id, (overlay) => readFileProposal(overlay, relative));
  }

  async accept(id: string, options: AcceptOptions = {}): Promise<AcceptOutcome> {
    this.assertOpen();
    const outcome = acceptProposal(this.core, id, options);
    if (outcome.agent.state === 'accepted')
      this.quietly(() => this.inboxState.recordDirect(id, triage.merge(), this.person, 'merged', '✓ merged'));
    return outcome;
  }

  async undo(id: string, options: { force?: boolean } = {}): Promise<UndoOutcome> {
    this.assertOpen();
    return undoAccepts(this.core, id, options);
  }

  async reject(id: string, reason?: string): Promise<AgentInfo> {
    this.assertOpen();
    const agent = rejectAgent(this.core, id, reason);
    const why = parseReason(oneLine(agent.reason ?? 'rejected').slice(0, 500) || 'rejected');
    if (why.ok) this.quietly(() => this.inboxState.recordDirect(id, triage.delete(why.value), this.person, 'rejected', '✓ deleted'));
    return agent;
  }

  async restore(id: string): Promise<AgentInfo> {
    this.assertOpen();
    return restoreAgent(this.core, id);
  }

  async reply(id: string, feedback: string): Promise<AgentInfo> {
    this.assertOpen();
    if (typeof feedback !== 'string' || feedback.trim() === '')
      throw new CairnError('CAIRN_INVALID_ARGUMENT', 'feedback must be a non-empty text');
    this.revise(id, feedback.trim());
    return toAgentInfo(this.store.require(id));
  }

  private revise(id: string, feedback: string): void {
    const record = this.store.transition(id, ['reviewing'], 'queued', { feedback, queueSeq: this.frontSeq() }, 'revise');
    this.recordChanged(record);
    this.emit({ type: 'agent.replied', time: iso(this.core.clock()), agentId: id, feedback });
    this.scheduler.adopt(id);
    this.scheduler.kick();
  }

  async review(id: string, options: ReviewOptions = {}): Promise<AgentInfo> {
    this.assertOpen();
    return toAgentInfo(this.startReviewer(id, options));
  }

  private startReviewer(id: string, options: ReviewOptions): AgentRecord {
    const target = this.store.require(id);
    if (target.role === 'reviewer')
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `agent ${id} is a reviewer; review the agent it reviews (${target.reviews ?? '?'})`);
    if (target.state !== 'reviewing')
      throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} is ${target.state}; only a reviewing agent's proposal can be reviewed`);
    const spawn: SpawnOptions = { ...options };
    delete (spawn as ReviewOptions).as;
    let actor: string | undefined;
    if (options.as !== undefined) {
      const settings = loadInboxSettings(this.root, this.layout.configPath);
      const named = settings.reviewers.get(options.as);
      if (named === undefined) {
        const known = [...settings.reviewers.keys()];
        throw new CairnError('CAIRN_INVALID_ARGUMENT', `no reviewer "${options.as}" in .cairn/config.json`, {
          hint:
            known.length > 0
              ? `the project names: ${known.join(', ')}`
              : 'name reviewers under "inbox.reviewers" in .cairn/config.json (SPEC.md §7)',
        });
      }
      actor = named.name;
      spawn.lang = named.lang;
      if (named.codeFile !== undefined) {
        try {
          spawn.code = readFileSync(join(this.root, named.codeFile), 'utf8');
        } catch (error) {
          throw new CairnError('CAIRN_CONFIG', `reviewer "${named.name}": cannot read ${named.codeFile}: ${(error as Error).message}`);
        }
      } else if (named.model !== undefined) spawn.model = named.model;
    }
    const task = `Review the proposal of agent ${id}. Its task: ${target.task}`;
    const fields = parseSpawn(task, spawn);
    this.inboxState.ensureThread(
      target,
      this.withOverlaySync(id, (overlay) => overlay.diff()),
    );
    const record = this.store.create(
      { ...fields, role: 'reviewer', reviews: id, createdBy: this.person, ...(actor === undefined ? {} : { actor }) },
      true,
    );
    this.emit({ type: 'agent.queued', time: iso(record.createdAt), agentId: record.id, task: record.task });
    this.recordChanged(record);
    this.scheduler.adopt(record.id);
    this.scheduler.kick();
    return this.store.require(record.id);
  }

  async inbox(options: { all?: boolean } = {}): Promise<InboxThread[]> {
    this.assertOpen();
    return this.inboxState.list(options.all === true);
  }

  async processInbox(options: { threads?: readonly string[] } = {}): Promise<InboxProcessOutcome> {
    this.assertOpen();
    const run = this.inboxChain.then(() => this.runInbox(options.threads));
    this.inboxChain = run.catch(() => undefined);
    return run;
  }

  private async runInbox(only: readonly string[] | undefined): Promise<InboxProcessOutcome> {
    const names = only ?? threadNames(this.layout.inboxDir);
    const bad = names.find((name) => typeof name !== 'string' || name.includes('/') || name.startsWith('.'));
    if (bad !== undefined)
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `"${String(bad)}" is not a thread file name in .cairn/threads/inbox/`);
    const context = this.processContext();
    const results: InboxResult[] = [];
    for (const name of names) {
      const result = await processThread(this.inboxState, name, context);
      if (result === undefined) continue;
      results.push(result);
      if (result.outcome !== 'invalid')
        this.emit({
          type: 'inbox.processed',
          time: iso(this.core.clock()),
          ...(result.agentId === undefined ? {} : { agentId: result.agentId }),
          result,
        });
    }
    return { ok: results.every((r) => decisionCarriedOut(r.outcome)), results };
  }

  private processContext(): ProcessContext {
    const executor: InboxExecutor = {
      accept: (agentId) => {
        const outcome = acceptProposal(this.core, agentId, {});
        return outcome.ok ? { ok: true } : { ok: false, conflicts: outcome.conflicts.map((c) => c.path) };
      },
      reject: (agentId, reason) => void rejectAgent(this.core, agentId, reason),
      reply: (agentId, feedback) => this.revise(agentId, feedback),
      startReviewer: (agentId, name) => this.startReviewer(agentId, { as: name }).id,
      rewriteThread: (agentId, note) => {
        const record = this.store.require(agentId);
        if (record.state !== 'reviewing') return;
        this.inboxState.ensureThread(
          record,
          this.withOverlaySync(agentId, (overlay) => overlay.diff()),
          note,
        );
      },
    };
    let settings: ReturnType<typeof loadInboxSettings> | undefined;
    return {
      root: this.root,
      owner: this.core.owner,
      clock: this.core.clock,
      store: (agentId) => this.store.get(agentId),
      isAgent: (actor) =>
        this.store.get(actor) !== undefined || (settings ??= loadInboxSettings(this.root, this.layout.configPath)).reviewers.has(actor),
      settings: () => (settings ??= loadInboxSettings(this.root, this.layout.configPath)),
      executor,
      approvalsOf: (agentId) =>
        this.inboxState.decisions
          .forAgent(agentId)
          .filter((row) => row.state === 'done' && row.approval)
          .map((row) => row.actor),
    };
  }

  async inboxLog(date?: string): Promise<InboxLogView> {
    this.assertOpen();
    const day = date ?? new Date(this.core.clock()).toISOString().slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day)))
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `"${day}" is not a date like 2026-11-23`);
    const path = auditPath(this.layout.auditDir, day);
    const text = readAudit(this.layout.auditDir, day);
    if (text === undefined) return { date: day, path, entries: [] };
    const parsed = parseAuditLog(text);
    if (parsed.ok) return { date: day, path, entries: parsed.value.entries };
    return {
      date: day,
      path,
      entries: [],
      problems: parsed.error.map((d) => ({ line: d.line, column: d.column, code: d.code, message: d.message })),
    };
  }

  private proposalForReview(agentId: string): ProposalForReview {
    const record = this.store.require(agentId);
    return this.withOverlaySync(agentId, (overlay) => {
      const changes = overlay.changes();
      const files = changes
        .filter((c) => c.kind === 'file')
        .map((c) => {
          const file = readFileProposal(overlay, c.path);
          const cap = (text: string | null) => (text !== null && text.length > 256 * 1024 ? null : text);
          return { path: c.path, status: c.status, before: cap(file.base), after: cap(file.proposed) };
        });
      return {
        agent: agentId,
        task: record.task,
        summary: record.summary ?? '',
        changes: changes.map((c) => ({ path: c.path, status: c.status })),
        diff: overlay.diff(),
        files,
      };
    });
  }

  /** Runs inbox bookkeeping that must not fail the operation it follows; a failure is reported as an event. */
  private quietly(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.emit({
        type: 'error',
        time: iso(this.core.clock()),
        code: 'inbox',
        message: `the review inbox could not be updated: ${(error as Error).message}`,
      });
    }
  }

  async replay(id: string): Promise<ReplayOutcome> {
    this.assertOpen();
    return replayAgent(this.core, id);
  }

  async journal(id: string): Promise<JournalView> {
    const record = this.store.require(id);
    return this.withOverlay(id, (overlay) => {
      const entries = [...new SqliteJournalStore(overlay.upper.db).entries()];
      const broken = verifyJournal(entries, record.journalHead);
      const view: JournalView = { agentId: id, rows: journalRows(entries), entries: entries.length, verified: broken === undefined };
      if (broken !== undefined) view.broken = broken;
      const earlier = interruptedJournal(overlay.upper.db);
      if (earlier.length > 0) {
        const earlierBroken = verifyJournal(earlier, undefined);
        view.interrupted = { rows: journalRows(earlier), entries: earlier.length, verified: earlierBroken === undefined };
      }
      return view;
    });
  }

  async history(id: string, limit = 20): Promise<CairnEvent[]> {
    this.assertOpen();
    this.store.require(id);
    return this.store.recentEvents(id, limit) as CairnEvent[];
  }

  async collect(olderThanMs: number): Promise<CollectOutcome> {
    this.assertOpen();
    return collectRejected(this.core, olderThanMs);
  }

  async wait(id: string, states: readonly AgentState[] = ['reviewing', 'accepted', 'rejected', 'failed', 'decided']): Promise<AgentInfo> {
    this.assertOpen();
    // Progress events (tool calls, logs, denials) never change an agent's state: only the others are worth a look.
    const progress = new Set(['agent.tool-called', 'agent.denied', 'agent.log', 'agent.generating', 'agent.repairing']);
    const stream = this.bus.stream((event) => 'agentId' in event && event.agentId === id && !progress.has(event.type));
    try {
      for (;;) {
        const record = this.store.require(id);
        if (states.includes(record.state)) return toAgentInfo(record);
        const next = await stream.next();
        if (next.done === true) throw new CairnError('CAIRN_CLOSED', 'the project was closed while waiting for the agent');
      }
    } finally {
      await stream.return?.();
    }
  }

  events(options: EventOptions = {}): AsyncIterable<CairnEvent> {
    const filter =
      options.agentId === undefined ? () => true : (event: CairnEvent) => 'agentId' in event && event.agentId === options.agentId;
    return this.bus.stream(filter, options.until);
  }

  /** Watches the working tree and applies each human edit to stable.db (what the daemon runs). */
  watch(options: { debounceMs?: number } = {}): ProjectWatcher {
    this.assertOpen();
    return watchProject(this.core, options);
  }

  /** Reports an event of a part running beside the project (the daemon's signals) to every listener. */
  notify(event: CairnEvent): void {
    this.emit(event);
  }

  /** Runs every queued agent (a daemon's scope), now and whenever one frees a slot. */
  startQueue(): void {
    this.scheduler.kick();
  }

  /** Agents running in this process now. */
  get running(): string[] {
    return this.scheduler.active;
  }

  /** Waits for the agents running in this process, then closes the stores, the sandbox and every event stream. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.scheduler.stop();
    await this.scheduler.idle();
    await this.inboxChain;
    this.closed = true;
    this.flushSnapshot();
    this.bus.close();
    await this.sandboxInstance?.close();
    this.store.close();
    this.stable.close();
  }

  private emit(event: CairnEvent): void {
    if ('agentId' in event && event.agentId !== undefined && event.type !== 'agent.tool-called' && event.type !== 'agent.log') {
      try {
        this.store.recordEvent(event.agentId, Date.parse(event.time), event);
      } catch {
        // the event still reaches live listeners; a store that is closing only loses its copy
      }
    }
    this.bus.emit(event);
  }

  private governanceFor(record: Pick<AgentRecord, 'budgets' | 'scope' | 'role'>): GovernanceSource {
    const loaded = loadProjectGovernance(this.layout.settingsDir, this.layout.manifestPath);
    if (!loaded.ok) {
      const detail = loaded.problems.map((p) => `${p.file}${p.path ? ` ${p.path}` : ''}: ${p.message}`).join('; ');
      throw new CairnError('CAIRN_MANIFEST', `.cairn/manifest.air.json is not valid: ${detail}`, {
        hint: 'see every problem with `cairn air check`',
      });
    }
    const base = defaultGovernance({
      role: record.role === 'reviewer' ? 'reviewer' : 'author',
      budgets: record.budgets,
      ...(record.scope === undefined ? {} : { scope: record.scope }),
    });
    return tightenGovernance(base, loaded.governance);
  }

  private recordChanged(record: AgentRecord): void {
    if (record.state === 'reviewing') {
      try {
        const diff = this.withOverlaySync(record.id, (overlay) => overlay.diff());
        writePreview(this.layout.previewsDir, record.id, diff);
        if (record.role !== 'reviewer') this.quietly(() => this.inboxState.ensureThread(record, diff));
      } catch (error) {
        if (!isCairnError(error)) throw error;
      }
    } else removePreview(this.layout.previewsDir, record.id);
    if (this.snapshotDue) return;
    this.snapshotDue = true;
    queueMicrotask(() => this.flushSnapshot());
  }

  private flushSnapshot(): void {
    if (!this.snapshotDue) return;
    this.snapshotDue = false;
    try {
      const agents = this.store.list().map(toAgentInfo);
      writeStateSnapshot(
        this.layout.stateDir,
        this.root,
        agents,
        this.store.queued().map((a) => a.id),
        this.core.clock(),
      );
    } catch {
      // the snapshot is a convenience for tools that read files; the databases stay the truth
    }
  }

  private frontSeq(): number {
    const queued = this.store.queued();
    return (queued[0]?.queueSeq ?? 0) - 1;
  }

  /**
   * Running agents whose process is gone: one a queue ran goes back to the front of the queue once, on a fresh
   * overlay that keeps the interrupted run's journal; any other is failed as interrupted, its journal kept.
   */
  private recoverOrphans(): void {
    for (const record of this.store.list(['running'])) {
      const pid = Number((record.owner ?? '').split(':')[0]);
      if (record.owner !== undefined && Number.isSafeInteger(pid) && pid > 0 && processAlive(pid)) continue;
      if (!claimOrphan(this.store, record, this.core.owner)) continue;
      try {
        if (mayRerun(record)) this.rerun(record);
        else this.failInterrupted(record);
      } catch (error) {
        if (!isCairnError(error, 'CAIRN_INVALID_STATE')) throw error;
      }
    }
  }

  private rerun(record: AgentRecord): void {
    restartOverlay(this.layout.overlayPath(record.id), this.stable);
    const queued = this.store.transition(
      record.id,
      ['running'],
      'queued',
      { owner: undefined, interruptions: (record.interruptions ?? 0) + 1, queueSeq: this.frontSeq(), changes: undefined },
      'run again',
    );
    this.recordChanged(queued);
    this.emit({ type: 'agent.requeued', time: iso(this.core.clock()), agentId: record.id, reason: `${INTERRUPTED}; it runs again` });
  }

  private failInterrupted(record: AgentRecord): void {
    const again = (record.interruptions ?? 0) > 0;
    const message = again ? `${INTERRUPTED}, and again when it ran a second time` : INTERRUPTED;
    const failed = this.store.transition(
      record.id,
      ['running'],
      'failed',
      { owner: undefined, failure: { code: 'interrupted', message, hint: 'spawn the task again' }, reason: message },
      'fail',
    );
    this.recordChanged(failed);
    this.emit({ type: 'agent.failed', time: iso(this.core.clock()), agentId: record.id, code: 'interrupted', reason: message });
  }

  private withOverlay<T>(id: string, fn: (overlay: Overlay) => T): Promise<T> {
    this.assertOpen();
    return Promise.resolve(this.withOverlaySync(id, fn));
  }

  private withOverlaySync<T>(id: string, fn: (overlay: Overlay) => T): T {
    const record = this.store.require(id);
    const path = this.layout.overlayPath(id);
    if (!existsSync(path)) {
      const why =
        record.state === 'rejected'
          ? `it was rejected; bring it back with \`cairn restore ${id}\``
          : record.state === 'queued'
            ? 'it has not started yet'
            : 'its database is missing';
      throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} has no overlay to read: ${why}`);
    }
    return withAgentOverlay(path, this.stable, id, fn);
  }

  private assertOpen(): void {
    if (this.closed) throw new CairnError('CAIRN_CLOSED', 'the project is closed');
  }
}

function parseSpawn(
  task: string,
  options: SpawnOptions,
): Omit<AgentRecord, 'id' | 'state' | 'queueSeq' | 'createdAt' | 'updatedAt' | 'runs' | 'spent'> {
  if (typeof task !== 'string' || task.trim() === '')
    throw new CairnError('CAIRN_INVALID_ARGUMENT', 'a task is required: say what the agent should do', {
      hint: 'cairn spawn "add docstrings to src/util.py"',
    });
  if (task.length > 20_000)
    throw new CairnError('CAIRN_INVALID_ARGUMENT', `the task is ${task.length} characters long; keep it under 20000`);
  const lang = options.lang ?? 'js';
  if (lang !== 'js' && lang !== 'py') throw new CairnError('CAIRN_INVALID_ARGUMENT', `unknown language "${String(lang)}" (js or py)`);
  if (options.code !== undefined && typeof options.code !== 'string')
    throw new CairnError('CAIRN_INVALID_ARGUMENT', "code must be the program's source text");
  if (options.code !== undefined && options.code.trim() === '') throw new CairnError('CAIRN_INVALID_ARGUMENT', 'the program is empty');
  if (options.model !== undefined && (typeof options.model !== 'string' || options.model.trim() === ''))
    throw new CairnError('CAIRN_INVALID_ARGUMENT', 'the model name is empty');
  const limits = { ...DEFAULT_LIMITS, ...positive(options.limits, 'limit') };
  const budgets = { ...DEFAULT_BUDGETS, ...positive(options.budgets, 'budget', ['repairs']) };
  const fields: ReturnType<typeof parseSpawn> = {
    task: task.trim(),
    origin: options.code === undefined ? 'model' : 'code',
    lang,
    limits,
    budgets,
  };
  if (options.code !== undefined) fields.code = options.code;
  if (options.code === undefined) fields.model = options.model?.trim() ?? DEFAULT_MODEL;
  if (options.scope !== undefined) fields.scope = options.scope.map(projectPath);
  return fields;
}

function positive<T extends object>(values: Partial<T> | undefined, what: string, zeroOk: readonly string[] = []): Partial<T> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    if (value === undefined) continue;
    const min = zeroOk.includes(key) ? 0 : 1;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
      throw new CairnError(
        'CAIRN_INVALID_ARGUMENT',
        `the ${key} ${what} must be a number of at least ${min} (got ${JSON.stringify(value)})`,
      );
    out[key] = Math.floor(value);
  }
  return out as Partial<T>;
}

function requireDirectory(root: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    throw new CairnError('CAIRN_PROJECT', `the project folder ${root} does not exist`);
  }
  if (!isDirectory) throw new CairnError('CAIRN_PROJECT', `${root} is not a folder`);
}

function prepareAgentfsDir(layout: ProjectLayout): void {
  try {
    mkdirSync(layout.agentfsDir, { recursive: true });
    const ignore = join(layout.agentfsDir, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, "# Cairn's databases: machine-local, never committed\n*\n");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw new CairnError(
        'CAIRN_PROJECT',
        `cannot write to ${layout.agentfsDir}: ${code === 'EROFS' ? 'the file system is read-only' : 'permission denied'}`,
        { hint: "Cairn keeps its databases in the project's .agentfs/ folder; the project must be writable" },
      );
    }
    throw error;
  }
}

function openStable(layout: ProjectLayout): AgentFS {
  try {
    return AgentFS.open(layout.stablePath, { durability: 'full' });
  } catch (error) {
    if (isAgentFSError(error, 'ECORRUPT') || isAgentFSError(error, 'EINVAL')) {
      throw new CairnError('CAIRN_CORRUPT', `${layout.stablePath} cannot be opened: ${(error as Error).message}`, {
        hint: 'stable.db only mirrors your files; move it aside and Cairn rebuilds it on the next command',
        cause: error,
      });
    }
    throw error;
  }
}

function parseTriageOrThrow(text: string): Triage {
  const parsed = parseTriage(text);
  if (!parsed.ok) throw new CairnError('CAIRN_INVALID_ARGUMENT', `not a decision: ${parsed.error.message}`);
  return parsed.value;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
