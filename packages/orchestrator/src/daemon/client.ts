import { existsSync } from 'node:fs';
import { Agent, request, type Dispatcher } from 'undici';
import { CairnError, type CairnErrorCode } from '../api/errors.js';
import type { CairnEvent } from '../api/events.js';
import type {
  AcceptOptions,
  AcceptOutcome,
  AgentFilter,
  AgentInfo,
  AgentState,
  ChangeInfo,
  FileProposal,
  CollectOutcome,
  JournalView,
  ReplayOutcome,
  SpawnOptions,
  SyncSummary,
  UndoOutcome,
  InboxLogView,
  InboxProcessOutcome,
  InboxThread,
  ReviewOptions,
} from '../api/types.js';
import type { CairnApi, EventOptions } from '../api/cairn-api.js';
import type { DaemonIdentity } from './routes.js';
import { socketAnswers } from './server.js';

const ORIGIN = 'http://cairn';

/**
 * The orchestrator API spoken to a running daemon over its socket: the same interface as the in-process
 * project, so a surface works the same with or without a daemon.
 */
export class DaemonClient implements CairnApi {
  readonly root: string;
  readonly socketPath: string;
  private readonly dispatcher: Agent;

  constructor(root: string, socketPath: string) {
    this.root = root;
    this.socketPath = socketPath;
    this.dispatcher = new Agent({ connect: { socketPath }, keepAliveTimeout: 10_000, bodyTimeout: 0, headersTimeout: 0 });
  }

  health(): Promise<DaemonIdentity & { ok: boolean }> {
    return this.call('GET', '/health');
  }

  shutdown(): Promise<{ ok: boolean }> {
    return this.call('POST', '/shutdown');
  }

  sync(): Promise<SyncSummary> {
    return this.call('POST', '/sync');
  }

  async spawn(task: string, options: SpawnOptions = {}): Promise<AgentInfo> {
    return (await this.call<{ agent: AgentInfo }>('POST', '/agents', { ...options, task, mode: 'spawn' })).agent;
  }

  async queue(task: string, options: SpawnOptions = {}): Promise<AgentInfo> {
    return (await this.call<{ agent: AgentInfo }>('POST', '/agents', { ...options, task, mode: 'queue' })).agent;
  }

  async agents(filter: AgentFilter = {}): Promise<AgentInfo[]> {
    const states = filter.state === undefined ? '' : `?state=${encodeURIComponent(([] as AgentState[]).concat(filter.state).join(','))}`;
    return (await this.call<{ agents: AgentInfo[] }>('GET', `/agents${states}`)).agents;
  }

  async agent(id: string): Promise<AgentInfo> {
    return (await this.call<{ agent: AgentInfo }>('GET', `/agents/${enc(id)}`)).agent;
  }

  async changes(id: string): Promise<ChangeInfo[]> {
    return (await this.call<{ changes: ChangeInfo[] }>('GET', `/agents/${enc(id)}/changes`)).changes;
  }

  async diff(id: string, paths?: readonly string[]): Promise<string> {
    const query = paths === undefined || paths.length === 0 ? '' : '?' + paths.map((p) => `path=${encodeURIComponent(p)}`).join('&');
    return (await this.call<{ diff: string }>('GET', `/agents/${enc(id)}/diff${query}`)).diff;
  }

  async proposed(id: string, path: string): Promise<string | null> {
    return (await this.call<{ content: string | null }>('GET', `/agents/${enc(id)}/files?path=${encodeURIComponent(path)}`)).content;
  }

  async proposal(id: string, path: string): Promise<FileProposal> {
    return (await this.call<{ proposal: FileProposal }>('GET', `/agents/${enc(id)}/proposal?path=${encodeURIComponent(path)}`)).proposal;
  }

  accept(id: string, options: AcceptOptions = {}): Promise<AcceptOutcome> {
    return this.call('POST', `/agents/${enc(id)}/accept`, options);
  }

  undo(id: string, options: { force?: boolean } = {}): Promise<UndoOutcome> {
    return this.call('POST', `/agents/${enc(id)}/undo`, options);
  }

  async reject(id: string, reason?: string): Promise<AgentInfo> {
    return (await this.call<{ agent: AgentInfo }>('POST', `/agents/${enc(id)}/reject`, reason === undefined ? {} : { reason })).agent;
  }

  async restore(id: string): Promise<AgentInfo> {
    return (await this.call<{ agent: AgentInfo }>('POST', `/agents/${enc(id)}/restore`)).agent;
  }

  async reply(id: string, feedback: string): Promise<AgentInfo> {
    return (await this.call<{ agent: AgentInfo }>('POST', `/agents/${enc(id)}/reply`, { feedback })).agent;
  }

  replay(id: string): Promise<ReplayOutcome> {
    return this.call('POST', `/agents/${enc(id)}/replay`);
  }

  async review(id: string, options: ReviewOptions = {}): Promise<AgentInfo> {
    return (await this.call<{ agent: AgentInfo }>('POST', `/agents/${enc(id)}/review`, options)).agent;
  }

  async inbox(options: { all?: boolean } = {}): Promise<InboxThread[]> {
    return (await this.call<{ threads: InboxThread[] }>('GET', `/inbox${options.all === true ? '?all=1' : ''}`)).threads;
  }

  processInbox(options: { threads?: readonly string[] } = {}): Promise<InboxProcessOutcome> {
    return this.call('POST', '/inbox/process', options.threads === undefined ? {} : { threads: options.threads });
  }

  inboxLog(date?: string): Promise<InboxLogView> {
    return this.call('GET', `/inbox/log${date === undefined ? '' : `?date=${encodeURIComponent(date)}`}`);
  }

  journal(id: string): Promise<JournalView> {
    return this.call('GET', `/agents/${enc(id)}/journal`);
  }

  async history(id: string, limit = 20): Promise<CairnEvent[]> {
    return (await this.call<{ events: CairnEvent[] }>('GET', `/agents/${enc(id)}/history?limit=${limit}`)).events;
  }

  collect(olderThanMs: number): Promise<CollectOutcome> {
    return this.call('POST', '/collect', { olderThanMs });
  }

  async wait(id: string, states?: readonly AgentState[]): Promise<AgentInfo> {
    const query = states === undefined ? '' : `?state=${encodeURIComponent(states.join(','))}`;
    return (await this.call<{ agent: AgentInfo }>('GET', `/agents/${enc(id)}/wait${query}`)).agent;
  }

  /** The daemon's event stream (NDJSON over a long-lived response), as an async iterable. */
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

  /** Opens the event stream and resolves once the daemon has started sending it: nothing after this is missed. */
  async subscribe(options: EventOptions = {}): Promise<AsyncIterator<CairnEvent>> {
    const query = options.agentId === undefined ? '' : `?agent=${encodeURIComponent(options.agentId)}`;
    const controller = new AbortController();
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${ORIGIN}/events${query}`, { method: 'GET', dispatcher: this.dispatcher, signal: controller.signal });
    } catch (cause) {
      throw new CairnError('CAIRN_DAEMON', `the daemon at ${this.socketPath} did not answer: ${(cause as Error).message}`, { cause });
    }
    const lines = readLines(response.body);
    const hello = await lines.next();
    if (hello.done === true) throw new CairnError('CAIRN_DAEMON', 'the daemon closed the event stream');
    const until = options.until;
    const finish = async (): Promise<IteratorResult<CairnEvent>> => {
      controller.abort();
      response.body.destroy();
      return { value: undefined, done: true };
    };
    let ended = false;
    return {
      async next(): Promise<IteratorResult<CairnEvent>> {
        if (ended) return { value: undefined, done: true };
        const line = await lines.next().catch(() => ({ value: undefined, done: true as const }));
        if (line.done === true) {
          ended = true;
          return finish();
        }
        const event = JSON.parse(line.value) as CairnEvent;
        if (until?.(event) === true) {
          ended = true;
          void finish();
        }
        return { value: event, done: false };
      },
      return: () => {
        ended = true;
        return finish();
      },
    };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${ORIGIN}${path}`, {
        method,
        dispatcher: this.dispatcher,
        ...(method === 'POST' ? { body: JSON.stringify(body ?? {}), headers: { 'content-type': 'application/json' } } : {}),
      });
    } catch (cause) {
      throw new CairnError('CAIRN_DAEMON', `the daemon at ${this.socketPath} did not answer: ${(cause as Error).message}`, {
        hint: 'restart it with `cairn down && cairn up`',
        cause,
      });
    }
    const text = await response.body.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new CairnError('CAIRN_DAEMON', `the daemon answered ${response.statusCode} with something that is not JSON`);
    }
    if (response.statusCode >= 400) {
      const error = parsed as { code?: string; message?: string; hint?: string };
      throw new CairnError(
        (error.code ?? 'CAIRN_DAEMON') as CairnErrorCode,
        error.message ?? `the daemon answered ${response.statusCode}`,
        error.hint === undefined ? {} : { hint: error.hint },
      );
    }
    return parsed as T;
  }
}

/** A client for the project's daemon, when one answers on its socket; undefined otherwise. */
export async function connectDaemon(root: string, socketPath: string): Promise<DaemonClient | undefined> {
  if (!existsSync(socketPath)) return undefined;
  if (!(await socketAnswers(socketPath))) return undefined;
  return new DaemonClient(root, socketPath);
}

async function* readLines(body: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  let buffer = '';
  for await (const chunk of body) {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== '') yield line;
    }
  }
}

function enc(id: string): string {
  return encodeURIComponent(id);
}
