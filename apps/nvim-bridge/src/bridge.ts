import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connectDaemon, type DaemonClient } from '@cairn/daemon';
import { type AcceptOutcome, type CairnApi, type CairnEvent, describeCheckStatus, isCairnError, projectLayout } from '@cairn/orchestrator';
import type { NeovimClient } from 'neovim';
import { ProposalIndex } from './proposal-index.js';

/** Events after which the set of reviewing proposals may differ. */
const PROPOSAL_EVENTS = new Set<CairnEvent['type']>([
  'agent.submitted',
  'agent.accepted',
  'agent.undone',
  'agent.rejected',
  'agent.restored',
  'agent.replied',
  'agent.failed',
  'agent.started',
  'check.finished',
]);

/** The notification the plugin sends its calls as: `{ id, method, args }`, answered through `_answer`. */
const CALL = 'cairn/call';

/** Events worth a message in the editor. */
const TOLD_EVENTS = new Set<CairnEvent['type']>([
  'agent.submitted',
  'agent.failed',
  'agent.accepted',
  'agent.rejected',
  'agent.undone',
  'accept.waiting',
]);

export interface BridgeOptions {
  root: string;
  /** The `cairn` command, as argv, for `:Cairn up`. */
  cairn: string[];
}

/**
 * The Node side of the Neovim plugin: it answers the plugin's requests with the daemon's API, follows the
 * daemon's event stream, and pushes proposals to the plugin as they change. Nothing polls.
 */
export class Bridge {
  private client: DaemonClient | undefined;
  private readonly index = new ProposalIndex(() => this.client);
  private stopEvents: (() => void) | undefined;
  private connecting: Promise<boolean> | undefined;

  constructor(
    private readonly nvim: NeovimClient,
    private readonly options: BridgeOptions,
  ) {}

  /**
   * Listens to the plugin at once, before the channel is ready: the client holds calls that arrive earlier
   * and hands them over when it is, so none is lost while the bridge starts.
   */
  listen(): void {
    this.nvim.on('request', (method: string, args: unknown[], response: { send(value: unknown, isError?: boolean): void }) => {
      this.handle(method, args[0]).then(
        (value) => response.send(value ?? null),
        (error: unknown) => response.send(describeError(error), true),
      );
    });
    this.nvim.on('notification', (method: string, args: unknown[]) => {
      if (method === CALL) {
        this.answer(args[0]);
        return;
      }
      this.handle(method, args[0]).catch((error: unknown) => this.tell('error', describeError(error)));
    });
  }

  /** Says hello to the plugin once the channel is ready (calls are answered from then on), then connects to the daemon. */
  async start(): Promise<void> {
    await this.nvim.channelId;
    await this.lua('_hello', []);
    await this.connect();
  }

  /** Answers one `cairn/call` by calling back into the plugin with its id: `_answer(id, ok, value or message)`. */
  private answer(raw: unknown): void {
    const call = parseCall(raw);
    if (call === undefined) {
      void this.tell('error', `the bridge got a malformed ${CALL}: ${JSON.stringify(raw)}`);
      return;
    }
    this.handle(call.method, call.args)
      .then(
        (value) => this.lua('_answer', [call.id, true, value ?? null]),
        (error: unknown) => this.lua('_answer', [call.id, false, describeError(error)]),
      )
      .catch((error: unknown) => this.tell('error', describeError(error)));
  }

  /** Connects to the project's daemon if one answers, one attempt at a time; says (once) when none does, unless `quiet`. */
  private connect(quiet = false): Promise<boolean> {
    this.connecting ??= this.reach(quiet).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async reach(quiet: boolean): Promise<boolean> {
    const layout = projectLayout(this.options.root);
    const client = await connectDaemon(layout.root, layout.socketPath);
    if (client === undefined) {
      if (!quiet) await this.lua('_daemon', [false, `no Cairn daemon runs for ${layout.root}; :Cairn up starts it`]);
      return false;
    }
    this.client = client;
    this.follow(client);
    await this.lua('_daemon', [true, '']);
    await this.publish();
    return true;
  }

  private follow(client: DaemonClient): void {
    const events = client.events()[Symbol.asyncIterator]();
    let stopped = false;
    this.stopEvents = () => {
      stopped = true;
      void events.return?.();
    };
    void (async () => {
      try {
        for (let next = await events.next(); !next.done && !stopped; next = await events.next()) {
          const event = next.value;
          if (PROPOSAL_EVENTS.has(event.type)) await this.publish();
          if (TOLD_EVENTS.has(event.type)) await this.lua('_on_event', [event]);
        }
      } catch {
        // The stream broke: the daemon went away. Said below.
      }
      if (stopped || this.client !== client) return;
      this.client = undefined;
      await this.publish();
      await this.lua('_daemon', [false, 'the Cairn daemon stopped; :Cairn up starts it again']);
    })().catch((error: unknown) => this.tell('error', describeError(error)));
  }

  /** Sends the current path → agents index to the plugin, which asks for the buffers it shows. */
  private async publish(): Promise<void> {
    const index = await this.index.refresh();
    await this.lua('_on_proposals', [index]);
  }

  /** The daemon's API; a daemon started since (`cairn up` in a terminal) is connected to on first use. */
  private async api(): Promise<CairnApi> {
    if (this.client === undefined) await this.connect();
    if (this.client === undefined) throw new Error('no Cairn daemon runs for this project; :Cairn up starts it');
    return this.client;
  }

  private async handle(method: string, raw: unknown): Promise<unknown> {
    const args = (raw ?? {}) as Record<string, unknown>;
    switch (method) {
      case 'cairn/buffer': {
        const { buf, tick, path, text } = args as { buf: number; tick: number; path: string; text: string };
        const proposals = await this.index.onText(path, text);
        await this.lua('_show', [buf, tick, proposals]);
        return null;
      }
      case 'cairn/status':
        return {
          root: this.options.root,
          daemon: this.client !== undefined,
          connecting: this.client === undefined && this.connecting !== undefined,
          socket: projectLayout(this.options.root).socketPath,
          node: process.version,
          pid: process.pid,
        };
      case 'cairn/agents':
        return (await this.api()).agents();
      case 'cairn/ids':
        return (await (await this.api()).agents()).map((a) => a.id);
      case 'cairn/diff':
        return (await this.api()).diff(String(args.id));
      case 'cairn/checks':
        return checksText(await this.api(), String(args.id));
      case 'cairn/accept':
        return summariseAccept(
          await (await this.api()).accept(String(args.id), Array.isArray(args.paths) ? { paths: args.paths.map(String) } : {}),
        );
      case 'cairn/reject':
        return (await this.api()).reject(String(args.id), typeof args.reason === 'string' ? args.reason : 'rejected in Neovim');
      case 'cairn/spawn':
        return (await this.api()).spawn(String(args.task));
      case 'cairn/refresh':
        if (this.client === undefined) await this.connect();
        else await this.publish();
        return null;
      case 'cairn/up':
        return this.up();
      default:
        throw new Error(`unknown request ${method}`);
    }
  }

  private async up(): Promise<string> {
    if (this.client !== undefined || (await this.connect(true))) return 'the Cairn daemon runs';
    const [command, ...rest] = this.options.cairn;
    const args = [...rest, 'up', '--detach', '--project', this.options.root];
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(command!, args, { stdio: 'ignore', cwd: this.options.root });
      child.on('error', reject);
      child.on('exit', (status) => resolve(status ?? 1));
    });
    if (code !== 0) throw new Error(`\`${[command, ...args].join(' ')}\` failed (exit ${code}); run it in a terminal to see why`);
    if (!(await this.connect())) throw new Error('the daemon started but does not answer on its socket');
    return 'the Cairn daemon is up';
  }

  private async lua(fn: string, args: unknown[]): Promise<void> {
    await this.nvim.lua(`return require('cairn')._bridge('${fn}', ...)`, args as never);
  }

  private async tell(level: 'info' | 'warn' | 'error', message: string): Promise<void> {
    await this.lua('_message', [level, message]).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.stopEvents?.();
    await this.client?.close();
  }
}

/** What the plugin needs from an accept: which files changed on disk, and what conflicted. */
function summariseAccept(outcome: AcceptOutcome) {
  return {
    ok: outcome.ok,
    state: outcome.agent.state,
    applied: outcome.applied.map((a) => a.path),
    conflicts: outcome.conflicts.map((c) => ({ path: c.path, reason: c.reason })),
  };
}

function parseCall(raw: unknown): { id: number; method: string; args: unknown } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { id, method, args } = raw as Record<string, unknown>;
  if (typeof id !== 'number' || typeof method !== 'string') return undefined;
  return { id, method, args };
}

function describeError(error: unknown): string {
  if (isCairnError(error)) return error.hint === undefined ? error.message : `${error.message} (${error.hint})`;
  return error instanceof Error ? error.message : String(error);
}

/** The `cairn` command: `--cairn CMD` if given, else the CLI beside this package in the repository, else `cairn` on PATH. */
export function cairnCommand(explicit: string | undefined): string[] {
  if (explicit !== undefined && explicit !== '') return [explicit];
  const sibling = fileURLToPath(new URL('../../cli/bin/cairn.mjs', import.meta.url));
  return existsSync(sibling) ? [process.execPath, sibling] : ['cairn'];
}

/** An agent's checks as text for a scratch buffer: one line per check, then the output of each that did not pass. */
async function checksText(api: CairnApi, id: string): Promise<string> {
  const checks = await api.checks(id);
  if (checks.length === 0) return `no checks have run on ${id}\n`;
  const lines = checks.map(
    (c) =>
      `${c.status === 'passed' ? '✓' : c.status === 'pending' || c.status === 'stale' ? '…' : '✗'} ${c.name}  ${describeCheckStatus(c)}`,
  );
  for (const check of checks) {
    if (check.status === 'passed' || check.status === 'pending') continue;
    const { output } = await api.checkOutput(id, check.name);
    lines.push('', `── ${check.name} ──`, ...output.replace(/\n$/, '').split('\n'));
  }
  return `${lines.join('\n')}\n`;
}
