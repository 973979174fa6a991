import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { CairnEvent } from '@cairn/api';
import { CairnError, DEFAULT_MODEL } from '@cairn/api';
import { CheckResultStore } from '@cairn/checks';
import { ReceiptSigner } from '@cairn/governance';
import type { ModelClient } from '@cairn/model';
import { createModelClient, loadModelSettings, modelClientOptionsFor } from '@cairn/model';
import { createSandbox, type Sandbox } from '@cairn/sandbox';
import { type ProjectLayout, projectLayout } from '@cairn/workspace';
import { AgentCommands } from '../agents/agent-commands.js';
import { AgentLifecycle } from '../agents/agent-lifecycle.js';
import { runAgent } from '../agents/agent-runner.js';
import { SessionOpener } from '../agents/agent-session.js';
import { openAgentStore } from '../agents/bin-damage.js';
import { CheckService } from '../agents/check-service.js';
import { keepAgentEvents } from '../agents/event-log.js';
import { recoverOrphans } from '../agents/interrupted.js';
import type { ProjectCore, ReviewerDecisions } from '../agents/project-core.js';
import { RecentEdits } from '../agents/recent-edits.js';
import { RunningAgents } from '../agents/running-agents.js';
import { type QueueScope, Scheduler } from '../agents/scheduler.js';
import { EventBus } from '../events/event-bus.js';
import { currentPerson } from '../inbox/actors.js';
import { InboxService } from '../inbox/inbox-service.js';
import { AcceptQueue } from '../review/accept-queue.js';
import { recoverPendingWrites } from '../review/complete-operation.js';
import type { CheckRunner } from '../run/check-adapter.js';
import { syncProject } from '../sync/sync.js';
import { Project, type ProjectParts } from './project.js';
import { openStable, prepareAgentfsDir, requireDirectory } from './project-files.js';
import { readOnlyCopy } from './read-only-copy.js';
import { observeRecords } from './record-observers.js';

/** Options of `openProject`. */
export interface ProjectOptions {
  /** `$CAIRN_HOME` (default: the environment's, or `~/.cairn`). */
  cairnHome?: string;
  /** Agents running at once in this process (default 3). */
  poolSize?: number;
  /**
   * `all`: run every queued agent (a daemon); `own` (default): only those this process created; `none`: none,
   * and no check starts here of its own accord (a move of the working tree marks results stale, nothing more).
   */
  queue?: QueueScope;
  /** Ollama's address (default: `OLLAMA_HOST`, or `http://127.0.0.1:11434`). */
  ollamaHost?: string;
  /** How long one model answer may take (ms). */
  modelTimeoutMs?: number;
  defaultModel?: string;
  /** Milliseconds since the epoch (injected by tests). */
  clock?: () => number;
  /** A sandbox shared with other projects of this process (a worker's jobs); it is not closed with the project. */
  sandbox?: Sandbox;
  /** Signs receipts instead of the project's key (a worker signs with its enrolled Ed25519 key). */
  signer?: ReceiptSigner;
  /** Runs queued agents elsewhere instead of in this process's pool (a coordinator feeding workers). */
  dispatch?: (core: ProjectCore) => AgentDispatch;
  /**
   * Only read the project (one on a read-only file system): its databases are read from a copy in the temp
   * folder (see `readOnlyCopy`), nothing is recovered or run, and nothing is written to the project.
   */
  readOnly?: boolean;
  /** Runs agents' `run_check` (default: a sealed view over the working tree). */
  runCheck?: CheckRunner;
}

/** Where queued agents go when they do not run in this process: at most `slots` at once, each by `run`. */
export interface AgentDispatch {
  slots: number;
  run(id: string): Promise<void>;
}

/**
 * Opens a project for agents: creates `.agentfs/` on first use, wires the project's services once, finishes
 * any accept a killed process left half done, and recovers agents whose process died while they ran (a
 * daemon's run again once; others fail as `interrupted`).
 */
export function openProject(root: string, options: ProjectOptions = {}): Project {
  return new Project(wireProject(root, options));
}

/** The services of an opened project, wired: what `openProject` puts behind its facade. */
export function wireProject(root: string, options: ProjectOptions = {}): ProjectParts {
  requireDirectory(resolve(root));
  const layout = projectLayout(resolve(root), options.cairnHome);
  if (options.readOnly !== true) return wireOn(layout, options);
  const copy = readOnlyCopy(layout);
  try {
    return wireOn(copy.layout, options, copy.release);
  } catch (error) {
    copy.release();
    throw error;
  }
}

/** Wires the services on a layout (the project's, or a read-only copy's, which `release` removes). */
function wireOn(layout: ProjectLayout, options: ProjectOptions, release?: () => void): ProjectParts {
  const readOnly = release !== undefined;
  prepareAgentfsDir(layout);
  const poolSize = checkPoolSize(options.poolSize ?? 3);
  const clock = options.clock ?? Date.now;
  const stable = openStable(layout);
  const store = openAgentStore(layout.binPath, clock);
  const bus = new EventBus();
  bus.subscribe(keepAgentEvents(store));
  const recent = new RecentEdits();
  bus.subscribe(recent.listener);
  const emit = bus.emit.bind(bus);
  let sandbox: Sandbox | undefined;
  let model: ModelClient | undefined;
  let inbox: InboxService | undefined;
  const decisions: ReviewerDecisions = { record: (reviewer, decision) => inbox!.record(reviewer, decision) };
  const core: ProjectCore = {
    layout,
    stable,
    store,
    signer: options.signer ?? ReceiptSigner.forProject(layout.receiptKeyPath),
    clock,
    owner: `${process.pid}:${randomBytes(4).toString('hex')}`,
    rerunsInterrupted: options.queue === 'all',
    defaultModel: options.defaultModel ?? DEFAULT_MODEL,
    sandbox: () => options.sandbox ?? (sandbox ??= createSandbox({ poolSize })),
    modelClient: () => (model ??= createModelClient(modelClientOptionsFor(loadModelSettings(layout.configPath), clientOverrides(options)))),
    modelSettings: () => loadModelSettings(layout.configPath),
    running: new RunningAgents(),
    sessions: new Map(),
    recentEdits: () => recent.list(),
    emit,
    lifecycle: new AgentLifecycle(store, emit, clock),
    decisions,
    ...(options.runCheck === undefined ? {} : { runCheck: options.runCheck }),
  };
  const dispatch = options.dispatch?.(core);
  const scheduler = new Scheduler(
    dispatch?.slots ?? poolSize,
    readOnly ? 'none' : (options.queue ?? 'own'),
    // an agent CLI runs in the process that spawned it (its terminal, its environment): never in a daemon's queue;
    // an MCP environment runs in the server that opened it, never from a queue
    () =>
      store
        .queued()
        .filter((a) => (a.exec === undefined || options.queue !== 'all') && a.session === undefined)
        .map((a) => a.id),
    dispatch === undefined ? (id) => runAgent(core, id) : (id) => dispatch.run(id),
  );
  const person = currentPerson();
  const commands = new AgentCommands(core, scheduler, person);
  // a process that runs no agent only shows the project: a move it syncs leaves the checks for one that runs
  const checks = new CheckService(core, new CheckResultStore(store.database), poolSize, { rerunOnMove: options.queue !== 'none' });
  const catchUp = async () => {
    const summary = await syncProject(core);
    if (summary.added + summary.updated + summary.removed > 0) checks.workingTreeMoved();
  };
  const accepts = new AcceptQueue({ core, checks, catchUp });
  const checkInbox = new InboxService(core, commands, person, checks, accepts);
  inbox = checkInbox;
  bus.subscribe((event) => {
    if (movesWorkingTree(event)) checks.workingTreeMoved();
    if (event.type === 'check.finished') checkInbox.noteChecks(event.agentId);
  });
  const observers = observeRecords(core, inbox, checks);
  // a read-only view shows the project as it is: what a killed process left is finished by the next one that may write
  if (!readOnly) {
    recoverPendingWrites(core);
    recoverOrphans(core);
  }
  if (core.rerunsInterrupted) checks.resumeInterrupted();
  scheduler.kick();
  return {
    core,
    bus,
    scheduler,
    commands,
    inbox,
    checks,
    accepts,
    observers,
    person,
    sessions: new SessionOpener(core, commands),
    closeSandbox: async () => sandbox?.close(),
    ...(release === undefined ? {} : { release }),
  };
}

/** An edit synced, or an accept or undo that wrote the working tree: every proposal's check results no longer hold. */
function movesWorkingTree(event: CairnEvent): boolean {
  if (event.type === 'sync.changed') return true;
  if (event.type === 'agent.accepted') return event.applied.length > 0;
  return event.type === 'agent.undone' && event.restored.length > 0;
}

function checkPoolSize(size: number): number {
  if (!Number.isSafeInteger(size) || size < 1)
    throw new CairnError('CAIRN_INVALID_ARGUMENT', `the pool size must be a positive integer (got ${String(size)})`);
  return size;
}

function clientOverrides(options: ProjectOptions): { host?: string; timeoutMs?: number } {
  return {
    ...(options.ollamaHost === undefined ? {} : { host: options.ollamaHost }),
    ...(options.modelTimeoutMs === undefined ? {} : { timeoutMs: options.modelTimeoutMs }),
  };
}
