import type { AgentFS } from '@cairn/agentfs';
import type { CairnEvent } from '@cairn/api';
import type { ReceiptSigner } from '@cairn/governance';
import type { ModelClient, ModelSettings } from '@cairn/model';
import type { Sandbox } from '@cairn/sandbox';
import type { ProjectLayout } from '@cairn/workspace';
import type { CheckRunner } from '../run/check-adapter.js';
import type { AgentLifecycle } from './agent-lifecycle.js';
import type { AgentRecord, AgentStore } from './agent-store.js';
import type { RunningAgents } from './running-agents.js';
import type { SessionMailbox } from './session-mailbox.js';

/** Where a reviewer's decision went: the thread it was written into, or why it was not. */
export type DecisionWritten = { thread: string } | { why: string };

/** What a reviewer agent's decision is handed to once its program has made it (the review inbox). */
export interface ReviewerDecisions {
  /** Writes the decision into the reviewed agent's thread and carries it out under the protocol. */
  record(reviewer: AgentRecord, decision: { decision: string; note: string }): Promise<DecisionWritten>;
}

/**
 * What the rooms of a project share, wired once by `openProject`: its layout and stores, the receipt key, the
 * clock, the sandbox and the model (made on first use), the event sink and the record lifecycle. Services a
 * room needs from a room above it are passed in here, never reached for. A service asks for the members it uses
 * (`Pick<ProjectCore, …>`, or a named view such as `AgentFiles`); only whole-project operations (running an
 * agent, accepting, undoing) take all of it.
 */
export interface ProjectCore {
  layout: ProjectLayout;
  stable: AgentFS;
  store: AgentStore;
  signer: ReceiptSigner;
  clock: () => number;
  /** `pid:token` of this process, written into the agents it runs. */
  owner: string;
  /** True in a process that runs the whole queue (a daemon): an agent it was running when it died runs again. */
  rerunsInterrupted: boolean;
  defaultModel: string;
  sandbox(): Sandbox;
  modelClient(): ModelClient;
  /** The `model` section of `.cairn/config.json`, read afresh (refused with `CAIRN_CONFIG` when malformed). */
  modelSettings(): ModelSettings;
  /** The mailboxes of the MCP environments this process runs, by agent id. */
  sessions: Map<string, SessionMailbox>;
  /** The agents this process runs, so a reject can stop one. */
  running: RunningAgents;
  /** Files the person edited lately, newest first (what the watcher saw). */
  recentEdits(): readonly string[];
  emit(event: CairnEvent): void;
  lifecycle: AgentLifecycle;
  /** Where reviewers' decisions go; none in a process that does not keep the inbox. */
  decisions: ReviewerDecisions;
  /** Runs an agent's `run_check` (absent: a sealed view over the working tree; a worker, which has none, refuses). */
  runCheck?: CheckRunner;
}

/** Where an agent's record and overlay are: what reading or settling a proposal needs of the project. */
export type AgentFiles = Pick<ProjectCore, 'layout' | 'stable' | 'store'>;
