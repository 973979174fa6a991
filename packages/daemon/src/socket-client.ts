import { existsSync } from 'node:fs';
import type { Agent } from 'node:http';
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
import { CairnError } from '@cairn/api';
import { answeredError, readAnswer } from './daemon-answer.js';
import { notAnsweringError, unreachableError } from './daemon-faults.js';
import { answeredInTime, daemonTimeoutMs } from './daemon-watch.js';
import { readEventStream } from './event-stream.js';
import { readBody, requestOverSocket, type SocketAnswer, socketAgent } from './socket-http.js';
import { healthAnswers, socketAnswers } from './socket-probe.js';
import { EVENT_STREAM, requestTarget, WIRE, type WireRoute } from './wire.js';
import type { DaemonHealth } from './wire-schemas.js';

/**
 * The orchestrator API spoken to a running daemon over its socket: the same interface as the in-process
 * project, so a surface works the same with or without a daemon. Each method is a route of the wire table
 * (`wire.ts`); every answer is parsed by the route's schema before it is returned.
 */
export class DaemonClient implements CairnApi {
  readonly root: string;
  readonly socketPath: string;
  private readonly connections: Agent;
  private readonly options: DaemonClientOptions;
  private closed = false;

  constructor(root: string, socketPath: string, options: DaemonClientOptions = {}) {
    this.root = root;
    this.socketPath = socketPath;
    this.connections = socketAgent();
    this.options = options;
  }

  /** Who the daemon is, and that it answers. */
  health(): Promise<DaemonHealth> {
    return this.send(WIRE.health);
  }

  /** Asks the daemon to stop (it lets running agents finish first). */
  shutdown(): Promise<{ ok: boolean }> {
    return this.send(WIRE.shutdown);
  }

  sync(): Promise<SyncSummary> {
    return this.send(WIRE.sync);
  }

  skipped(): Promise<SkippedEntryInfo[]> {
    return this.send(WIRE.skipped);
  }

  spawn(task: string, options?: SpawnOptions): Promise<AgentInfo> {
    return this.send(WIRE.createAgent, task, options, 'spawn');
  }

  queue(task: string, options?: SpawnOptions): Promise<AgentInfo> {
    return this.send(WIRE.createAgent, task, options, 'queue');
  }

  agents(filter?: AgentFilter): Promise<AgentInfo[]> {
    return this.send(WIRE.agents, filter);
  }

  agent(id: string): Promise<AgentInfo> {
    return this.send(WIRE.agent, id);
  }

  changes(id: string): Promise<ChangeInfo[]> {
    return this.send(WIRE.changes, id);
  }

  diff(id: string, paths?: readonly string[]): Promise<string> {
    return this.send(WIRE.diff, id, paths);
  }

  proposed(id: string, path: string): Promise<string | null> {
    return this.send(WIRE.proposed, id, path);
  }

  proposal(id: string, path: string): Promise<FileProposal> {
    return this.send(WIRE.proposal, id, path);
  }

  accept(id: string, options?: AcceptOptions): Promise<AcceptOutcome> {
    return this.send(WIRE.accept, id, options);
  }

  acceptMany(ids: readonly string[], options?: AcceptManyOptions): Promise<AcceptManyOutcome> {
    return this.send(WIRE.acceptMany, ids, options);
  }

  undo(id: string, options?: { force?: boolean }): Promise<UndoOutcome> {
    return this.send(WIRE.undo, id, options);
  }

  reject(id: string, reason?: string): Promise<AgentInfo> {
    return this.send(WIRE.reject, id, reason);
  }

  restore(id: string): Promise<AgentInfo> {
    return this.send(WIRE.restore, id);
  }

  reply(id: string, feedback: string): Promise<AgentInfo> {
    return this.send(WIRE.reply, id, feedback);
  }

  replay(id: string): Promise<ReplayOutcome> {
    return this.send(WIRE.replay, id);
  }

  review(id: string, options?: ReviewOptions): Promise<AgentInfo> {
    return this.send(WIRE.review, id, options);
  }

  inbox(options?: { all?: boolean }): Promise<InboxThread[]> {
    return this.send(WIRE.inbox, options);
  }

  processInbox(options?: { threads?: readonly string[] }): Promise<InboxProcessOutcome> {
    return this.send(WIRE.processInbox, options);
  }

  inboxLog(date?: string): Promise<InboxLogView> {
    return this.send(WIRE.inboxLog, date);
  }

  journal(id: string): Promise<JournalView> {
    return this.send(WIRE.journal, id);
  }

  checks(id: string): Promise<CheckResultInfo[]> {
    return this.send(WIRE.checks, id);
  }

  checkOutput(id: string, name: string): Promise<CheckOutput> {
    return this.send(WIRE.checkOutput, id, name);
  }

  runChecks(id: string, names?: readonly string[]): Promise<CheckResultInfo[]> {
    return this.send(WIRE.runChecks, id, names);
  }

  history(id: string, limit?: number): Promise<CairnEvent[]> {
    return this.send(WIRE.history, id, limit);
  }

  collect(olderThanMs: number): Promise<CollectOutcome> {
    return this.send(WIRE.collect, olderThanMs);
  }

  wait(id: string, states?: readonly AgentState[]): Promise<AgentInfo> {
    return this.send(WIRE.wait, id, states);
  }

  /** The daemon's event stream (NDJSON over a long-lived response), opened on the first `next()`. */
  events(options: EventOptions = {}): AsyncIterable<CairnEvent> {
    return {
      [Symbol.asyncIterator]: () => {
        let opened: Promise<AsyncIterator<CairnEvent>> | undefined;
        const open = () => (opened ??= this.subscribe(options));
        return {
          next: async () => (await open()).next(),
          return: async () => (await open()).return?.() ?? { value: undefined, done: true },
        };
      },
    };
  }

  /**
   * Opens the event stream and resolves once the daemon has started sending it: nothing after this is missed.
   * A stream may be silent for long; after twice the probe's bound of silence the daemon is probed, and one that
   * does not answer ends the stream with `CAIRN_DAEMON`.
   */
  async subscribe(options: EventOptions = {}): Promise<AsyncIterator<CairnEvent>> {
    const controller = new AbortController();
    const stream = await this.watched(QUIET_MS, async (signal) => {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      const response = await this.exchange(
        EVENT_STREAM.method,
        requestTarget(EVENT_STREAM.path, EVENT_STREAM.request(options)),
        controller.signal,
      );
      if (response.statusCode >= 400)
        throw answeredError(response.statusCode, await this.readText(response), `${EVENT_STREAM.method} ${EVENT_STREAM.path}`);
      return readEventStream(response.body, options.until, () => {
        controller.abort();
        response.body.destroy();
      });
    });
    return {
      next: () =>
        this.watched(STREAM_QUIET_FACTOR * (this.options.timeoutMs ?? daemonTimeoutMs()), async (signal) => {
          signal.addEventListener('abort', () => void stream.return?.(), { once: true });
          return stream.next();
        }),
      return: async () => (await stream.return?.()) ?? { value: undefined, done: true },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.connections.destroy();
  }

  /** One call: the route's request for the arguments, its answer parsed by the route's schema (or the error it carries). */
  private async send<A extends readonly unknown[], R>(route: WireRoute<A, R>, ...args: A): Promise<R> {
    const wire = route.request(...args);
    const what = `${route.method} ${route.path}`;
    const { statusCode, text } = await this.watched(QUIET_MS, async (signal) => {
      const response = await this.exchange(route.method, requestTarget(route.path, wire), signal, wire.body);
      return { statusCode: response.statusCode, text: await this.readText(response) };
    });
    if (statusCode >= 400) throw answeredError(statusCode, text, what);
    return readAnswer(route.response, text, what);
  }

  private async exchange(method: 'GET' | 'POST', target: string, signal?: AbortSignal, body?: object): Promise<SocketAnswer> {
    if (this.closed) throw new CairnError('CAIRN_CLOSED', 'the client is closed');
    try {
      return await requestOverSocket(this.connections, this.socketPath, method, target, body, signal);
    } catch (cause) {
      throw await unreachableError(this.socketPath, cause);
    }
  }

  /** Runs a request watched for a daemon that stopped answering (see `answeredInTime`). */
  private watched<T>(quietMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = this.options.timeoutMs ?? daemonTimeoutMs();
    return answeredInTime(work, {
      quietMs,
      probe: () => healthAnswers(this.socketPath, timeoutMs),
      unanswered: (waitedMs) => notAnsweringError(this.socketPath, this.options.pidPath, waitedMs, timeoutMs),
    });
  }

  private async readText(response: SocketAnswer): Promise<string> {
    try {
      return await readBody(response);
    } catch (cause) {
      throw await unreachableError(this.socketPath, cause);
    }
  }
}

/** How long a request goes without an answer before the daemon is probed. */
const QUIET_MS = 1000;
/** The same for the event stream, which may be silent for long by right: this many times the probe's bound. */
const STREAM_QUIET_FACTOR = 2;

/** Options of a daemon client. */
export interface DaemonClientOptions {
  /** The daemon's pid file, to name its process when it does not answer. */
  pidPath?: string;
  /** How long the daemon is given to answer a probe (ms; default `CAIRN_DAEMON_TIMEOUT_MS`, else 5 s). */
  timeoutMs?: number;
}

/**
 * A client for the project's daemon, when its socket takes a connection within the bound; undefined otherwise.
 * (A stopped daemon's socket still takes connections: its client's first request finds out.)
 */
export async function connectDaemon(
  root: string,
  socketPath: string,
  options: DaemonClientOptions = {},
): Promise<DaemonClient | undefined> {
  if (!existsSync(socketPath)) return undefined;
  if (!(await socketAnswers(socketPath, options.timeoutMs ?? daemonTimeoutMs()))) return undefined;
  return new DaemonClient(root, socketPath, options);
}
