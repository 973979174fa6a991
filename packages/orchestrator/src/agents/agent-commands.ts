import type { AgentInfo, CairnEvent, ExecSpec, SpawnOptions } from '@cairn/api';
import { type AgentSpec, agentSpec, CairnError } from '@cairn/api';
import { startingGovernance } from '@cairn/governance';
import { toAgentInfo } from './agent-info.js';
import type { AgentRecord, AgentStore } from './agent-store.js';
import { withModelSettings } from './model-defaults.js';
import type { ProjectCore } from './project-core.js';
import type { Scheduler } from './scheduler.js';

/** What makes a reviewer agent: the agent it reviews, and the name it decides as when the project gives one. */
export interface ReviewerOf {
  reviews: string;
  actor?: string;
}

/**
 * The commands that create agents or send them back to work: spawn and queue (checked, governed, recorded,
 * scheduled), a reviewer for a proposal, and a revision with feedback.
 */
export class AgentCommands {
  constructor(
    private readonly core: Pick<ProjectCore, 'emit' | 'layout' | 'lifecycle' | 'modelSettings' | 'store'>,
    private readonly scheduler: Scheduler,
    /** Who creates agents through this process: the owner of their proposals in the review protocol. */
    private readonly person: string,
  ) {}

  /** Creates an agent from a task and spawn options; `front` puts it before every queued agent. */
  create(task: unknown, options: SpawnOptions | undefined, front: boolean): AgentInfo {
    return toAgentInfo(this.add(agentSpec(task, options), front, {}, options?.model === undefined));
  }

  /** Creates an MCP environment's agent: its work is its client's calls, run by the session that opens it. */
  createSession(task: unknown, options: SpawnOptions, client: string): AgentInfo {
    const { code: _code, exec: _exec, model: _model, modelOptions: _modelOptions, ...rest } = options;
    const { model: _default, ...spec } = agentSpec(task, rest);
    return toAgentInfo(this.add({ ...spec, origin: 'code', session: { client } }, false));
  }

  /** Sends an MCP environment under review back to work, for a session to run over its proposal so far. */
  reopen(id: string): void {
    this.core.lifecycle.move(id, ['reviewing'], 'queued', { queueSeq: frontSeq(this.core.store) }, 'reopen', (record, time) => ({
      type: 'agent.queued',
      time,
      agentId: id,
      task: record.task,
    }));
  }

  /** Creates a reviewer agent at the front of the queue. */
  createReviewer(spec: AgentSpec, reviewer: ReviewerOf): AgentRecord {
    return this.add(spec, true, { role: 'reviewer', ...reviewer });
  }

  /** Sends a reviewing agent back to work with feedback (`do:reply`), ahead of queued agents. */
  reply(id: string, feedback: unknown): AgentInfo {
    if (typeof feedback !== 'string' || feedback.trim() === '')
      throw new CairnError('CAIRN_INVALID_ARGUMENT', 'feedback must be a non-empty text');
    this.revise(id, feedback.trim());
    return toAgentInfo(this.core.store.require(id));
  }

  /** As `reply`, for feedback already checked (a processed decision). */
  revise(id: string, feedback: string): void {
    this.core.lifecycle.move(id, ['reviewing'], 'queued', { feedback, queueSeq: frontSeq(this.core.store) }, 'revise', (_, time) => ({
      type: 'agent.replied',
      time,
      agentId: id,
      feedback,
    }));
    this.schedule(id);
  }

  /**
   * Runs a command (an agent CLI) again in a reviewing agent's view, over its proposal so far
   * (`cairn run ID -- CMD`); what it writes adds to the proposal.
   */
  runAgain(id: string, exec: ExecSpec): AgentInfo {
    const record = this.core.store.require(id);
    if (record.state === 'running' || record.state === 'queued')
      throw new CairnError('CAIRN_BUSY', `agent ${id} is ${record.state}: one command runs in an agent at a time`, {
        hint: `wait for it to end (cairn status ${id}), or stop it with cairn reject ${id}`,
      });
    if (record.role === 'reviewer')
      throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} is a reviewer: it proposes nothing to run over`);
    if (record.state !== 'reviewing')
      throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} is ${record.state}: a command runs again only in a reviewing agent`, {
        hint: 'start a new one with cairn spawn --exec -- CMD',
      });
    this.core.lifecycle.move(id, ['reviewing'], 'queued', { exec, queueSeq: frontSeq(this.core.store) }, 'run', (_, time) => ({
      type: 'agent.queued',
      time,
      agentId: id,
      task: record.task,
    }));
    this.schedule(id);
    return toAgentInfo(this.core.store.require(id));
  }

  /** Records a new agent: its governance checked first, then the project's model settings under its own. */
  private add(spec: AgentSpec, front: boolean, extra: Partial<AgentRecord> = {}, projectModel = false): AgentRecord {
    startingGovernance(this.core.layout, { ...spec, ...extra });
    const settled = withModelSettings(spec, this.core.modelSettings(), projectModel);
    let queued: CairnEvent | undefined;
    const record = this.core.store.create({ ...settled, ...extra, createdBy: this.person }, front, (created) => {
      queued = { type: 'agent.queued', time: new Date(created.createdAt).toISOString(), agentId: created.id, task: created.task };
      return queued;
    });
    this.core.emit(queued!);
    this.core.lifecycle.changed(record);
    this.schedule(record.id);
    return this.core.store.require(record.id);
  }

  private schedule(id: string): void {
    this.scheduler.adopt(id);
    this.scheduler.kick();
  }
}

/** A queue position before every queued agent. */
export function frontSeq(store: AgentStore): number {
  return (store.queued()[0]?.queueSeq ?? 0) - 1;
}
