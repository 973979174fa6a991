import type { AgentInfo, AgentSession, Project } from '@cairn/orchestrator';
import { isCairnError } from '@cairn/orchestrator';

/** A call that outlived the time a client waits for an answer: `wait` takes it up. */
export interface HeldCall {
  label: string;
  started: number;
  result: Promise<CallResult>;
  done: boolean;
}

/** What a tool call answers: text for the client's model, and whether it is an error. */
export interface CallResult {
  text: string;
  isError?: boolean;
}

/** A problem with a call, said to the client's model as the call's error. */
export class CallProblem extends Error {
  override readonly name = 'CallProblem';
}

/** An environment this session holds: its agent's session, and a call still running past its answer. */
export interface HeldEnvironment {
  session: AgentSession;
  held?: HeldCall | undefined;
}

/**
 * The environments one MCP client has open: each an agent of the project's, run by this process. An id that is
 * not this session's is answered with where it is (another client's, ended, unknown).
 */
export class Environments {
  private readonly held = new Map<string, HeldEnvironment>();

  constructor(
    private readonly project: Project,
    private readonly client: () => string,
  ) {}

  /** A new environment for `task`. */
  open(task: string): HeldEnvironment {
    return this.keep(this.project.sessions.start(task, {}, this.client()));
  }

  /** Continues an environment that ended (under review, or failed), over its proposal so far. */
  async resume(id: string): Promise<HeldEnvironment> {
    const mine = this.held.get(id);
    if (mine !== undefined && !mine.session.ended) return mine;
    await this.project.agent(id).catch((error: unknown) => {
      throw new CallProblem(isCairnError(error, 'CAIRN_NOT_FOUND') ? `there is no environment ${id}` : (error as Error).message);
    });
    try {
      return this.keep(this.project.sessions.resume(id));
    } catch (error) {
      const hint = (error as { hint?: string }).hint;
      throw new CallProblem(`${(error as Error).message}${hint === undefined ? '' : ` (${hint})`}`);
    }
  }

  /** The environment `id`, open in this session; a `CallProblem` saying where it is otherwise. */
  async require(id: string): Promise<HeldEnvironment> {
    const mine = this.held.get(id);
    if (mine !== undefined && !mine.session.ended) return mine;
    let info: AgentInfo;
    try {
      info = await this.project.agent(id);
    } catch {
      throw new CallProblem(`there is no environment ${id}: open one with environment_open`);
    }
    if (!info.kind.startsWith('mcp:')) throw new CallProblem(`${id} is not an MCP environment (it is a ${info.kind} agent)`);
    if (info.state === 'running' || info.state === 'queued')
      throw new CallProblem(
        `environment ${id} is in use by another client's session; each environment belongs to the session that opened it (open a new one)`,
      );
    const why = info.summary ?? info.reason;
    const ended = `environment ${id} has ended (${info.state}${why === undefined ? '' : `: ${why}`})`;
    throw new CallProblem(
      info.state === 'reviewing'
        ? `${ended}; continue in it with environment_open { "environment": "${id}" }`
        : `${ended}; open a new one with environment_open`,
    );
  }

  /** The ids of the environments this session opened. */
  ids(): string[] {
    return [...this.held.keys()];
  }

  /** Ends every environment this session holds: what each made is kept, as a proposal to review. */
  async closeAll(summary: string): Promise<void> {
    await Promise.all([...this.held.values()].map((env) => env.session.close(summary)));
  }

  private keep(session: AgentSession): HeldEnvironment {
    const env: HeldEnvironment = { session };
    this.held.set(session.id, env);
    return env;
  }
}
