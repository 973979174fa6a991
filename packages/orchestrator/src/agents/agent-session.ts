import { normalProjectPath } from '@cairn/air';
import { type AgentInfo, CairnError, type SpawnOptions } from '@cairn/api';
import type { AgentCommands } from './agent-commands.js';
import { toAgentInfo } from './agent-info.js';
import { runAgent } from './agent-runner.js';
import type { ProjectCore } from './project-core.js';
import { type CommandAnswer, type SessionAnswer, SessionMailbox } from './session-mailbox.js';

export type { CommandAnswer, SessionAnswer } from './session-mailbox.js';

/** A session's wall budget unless its spawn gives one: a session lives as long as its client, idle most of it. */
const SESSION_WALL_MS = 24 * 3600_000;

/**
 * One environment an MCP client opened: a Cairn agent whose work is the client's calls. Each call runs in order
 * as a one-line program of the tool functions (governed, signed and journaled as any program's); a command runs
 * in the agent's writable view. The environment lasts until `submit` (its proposal goes to review) or `close`
 * (what the calls made is kept as the proposal, marked as left unsubmitted).
 */
export class AgentSession {
  constructor(
    readonly id: string,
    private readonly mailbox: SessionMailbox,
    /** Resolves once the agent has settled (reviewing, or failed when nothing changed). */
    readonly settled: Promise<void>,
  ) {}

  /** Requests sent and not yet answered. */
  get waiting(): number {
    return this.mailbox.waiting;
  }

  /** True once the environment has ended. */
  get ended(): boolean {
    return this.mailbox.ended;
  }

  /** Calls a tool function with JSON arguments, as the one-line program that makes that call. */
  call(tool: string, args: readonly unknown[]): Promise<SessionAnswer> {
    return this.send(tool, args, false);
  }

  /** Ends the environment with `submit_result(summary, changed_files)`: its proposal goes to review. */
  async submit(summary: string, changedFiles: readonly string[] = []): Promise<SessionAnswer> {
    const answer = await this.send('submit_result', [summary, changedFiles], true);
    if (answer.ok) await this.settled;
    return answer;
  }

  /** Runs a command (argv) in the environment's writable sealed view; what it writes lands in the overlay. */
  command(command: readonly string[], options: { wallMs: number; cwd?: string }): Promise<CommandAnswer> {
    if (this.mailbox.ended) return Promise.resolve(this.endedAnswer());
    const cwd = options.cwd === undefined ? undefined : normalProjectPath(options.cwd);
    if (options.cwd !== undefined && cwd === undefined)
      return Promise.resolve({ ok: false, message: `run_command: cwd ${JSON.stringify(options.cwd)} is not a folder inside the project` });
    const exec = { command: [...command], env: [], home: [], ...(cwd === undefined || cwd === '' ? {} : { cwd }) };
    return new Promise((answer) => this.mailbox.put({ type: 'command', command: exec, wallMs: options.wallMs, answer }));
  }

  /** Ends the environment without a submission (the client left): what its calls made stays, as a proposal. */
  async close(summary = 'the client left before submitting'): Promise<void> {
    if (!this.mailbox.ended) this.mailbox.put({ type: 'end', summary: `unsubmitted: ${summary}` });
    await this.settled;
  }

  private send(tool: string, args: readonly unknown[], ends: boolean): Promise<SessionAnswer> {
    if (this.mailbox.ended) return Promise.resolve(this.endedAnswer());
    const program = `return await ${tool}(${args.map((arg) => JSON.stringify(arg)).join(', ')});\n`;
    return new Promise((answer) => this.mailbox.put({ type: 'call', program, call: { name: tool, args }, ends, answer }));
  }

  private endedAnswer(): { ok: false; message: string } {
    return { ok: false, message: `environment ${this.id} has ended; open a new one, or continue it with environment_open` };
  }
}

/** Opens and keeps the MCP environments of this process. */
export class SessionOpener {
  private readonly open = new Map<string, AgentSession>();

  constructor(
    private readonly core: ProjectCore,
    private readonly commands: AgentCommands,
  ) {}

  /** A new environment: an agent with `task`, running in this process until its client submits or leaves. */
  start(task: unknown, options: SpawnOptions, client: string): AgentSession {
    const budgets = { wallMs: SESSION_WALL_MS, ...options.budgets };
    const info = this.commands.createSession(task, { ...options, budgets }, client);
    return this.run(info.id);
  }

  /**
   * Continues an environment that has ended with its proposal under review: a new stretch over its proposal so
   * far. One held by another process's session is refused with `CAIRN_BUSY`.
   */
  resume(id: string): AgentSession {
    const held = this.open.get(id);
    if (held !== undefined && !held.ended) return held;
    const record = this.core.store.require(id);
    if (record.session === undefined)
      throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} is not an MCP environment (it is ${toAgentInfo(record).kind})`);
    if (record.state === 'running' || record.state === 'queued')
      throw new CairnError('CAIRN_BUSY', `environment ${id} is in use by another client's session (${record.owner ?? 'another process'})`, {
        hint: 'each environment belongs to the session that opened it; open a new one, or continue this one once that session ends',
      });
    this.commands.reopen(id);
    return this.run(id);
  }

  /** The environment `id` when this process holds it open. */
  get(id: string): AgentSession | undefined {
    const session = this.open.get(id);
    return session === undefined || session.ended ? undefined : session;
  }

  /** Ends every environment this process holds (the server stops, or its client left); each keeps what it made. */
  async closeAll(summary?: string): Promise<AgentInfo[]> {
    const sessions = [...this.open.values()];
    await Promise.all(sessions.map((session) => session.close(summary)));
    return sessions.map((session) => toAgentInfo(this.core.store.require(session.id)));
  }

  private run(id: string): AgentSession {
    const mailbox = new SessionMailbox();
    this.core.sessions.set(id, mailbox);
    const settled = runAgent(this.core, id).finally(() => {
      mailbox.drain(`environment ${id} has ended`);
      if (this.core.sessions.get(id) === mailbox) this.core.sessions.delete(id);
    });
    const session = new AgentSession(id, mailbox, settled);
    this.open.set(id, session);
    return session;
  }
}
