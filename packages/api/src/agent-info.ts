import type { ProgramLang } from './agent-options.js';
import type { AgentState } from './agent-states.js';
import type { CheckResultInfo } from './check-results.js';
import type { ChangeInfo } from './proposal-changes.js';

/** Why an agent failed, with a stable code (`interrupted`, `timeout`, `budget`, `model-unreachable`, …). */
export interface AgentFailure {
  code: string;
  message: string;
  hint?: string;
}

/** An agent as every surface sees it (the CLI's `--json` shape, the daemon's). Times are ISO 8601. */
export interface AgentInfo {
  id: string;
  task: string;
  state: AgentState;
  createdAt: string;
  updatedAt: string;
  /** `code` for a user's program, `model` when a model writes it. */
  origin: 'code' | 'model';
  /** What the agent is, in one word: `model`, `code`, or `exec:<program>` for an agent CLI in a writable view,
   * `mcp:<client>` for an environment an MCP client opened. */
  kind: string;
  /** For an agent CLI: the command it runs. */
  command?: string[];
  lang: ProgramLang;
  model?: string;
  summary?: string;
  /** What the proposal changes (for an accepted agent: what it changed when last accepted). */
  changes?: ChangeInfo[];
  /** One line on why the agent is where it is: the failure, the rejection reason. */
  reason?: string;
  failure?: AgentFailure;
  /** Program runs so far (repairs and revisions included). */
  runs: number;
  spent: { tokens: number; bytes: number; calls: number; wallMs: number; repairs: number };
  /** `reviewer` for an agent that reviews another's proposal. */
  role?: 'author' | 'reviewer';
  /** The agent a reviewer reviews. */
  reviews?: string;
  /** A reviewer's decision and note. */
  decision?: { decision: string; note: string; thread?: string };
  /** The worker that runs or ran the agent, for an agent run on another machine. */
  worker?: string;
  /** The project's checks on this proposal, one per declared check that has run or is due. */
  checks?: CheckResultInfo[];
}

/** A filter for `agents()`. */
export interface AgentFilter {
  state?: AgentState | readonly AgentState[];
}
