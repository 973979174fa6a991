import type { AgentInfo, CairnEvent, SpawnOptions } from '@cairn/api';
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
