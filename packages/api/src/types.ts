/**
 * Where an agent is in its life. `do:reply` feedback moves `reviewing` back to `running`. A reviewer agent
 * proposes nothing: it ends `decided` (its decision written into the thread) or `failed`.
 */
export type AgentState = (typeof AGENT_STATES)[number];

/** Every state an agent can be in, in the order of its life. */
export const AGENT_STATES = ['queued', 'running', 'reviewing', 'accepted', 'rejected', 'failed', 'decided'] as const;

/** The language of an agent's program. */
export type ProgramLang = 'js' | 'py';

/** How a path changed in an agent's proposal. */
export type ChangeStatus = 'added' | 'modified' | 'deleted';

/** One changed path of a proposal. */
export interface ChangeInfo {
  path: string;
  status: ChangeStatus;
  /** `file`, `dir` or `symlink` (the kind before the change, for deletions). */
  kind: 'file' | 'dir' | 'symlink';
}

/** Why an agent failed, with a stable code (`interrupted`, `timeout`, `budget`, `model-unreachable`, …). */
export interface AgentFailure {
  code: string;
  message: string;
  hint?: string;
}

/** Hard limits of one program run. */
export interface AgentLimits {
  /** Wall-clock time of one run, host calls included (ms). */
  wallMs: number;
  /** CPU time of one run (ms). */
  cpuMs: number;
  /** Heap of the program's isolate (MiB). */
  memoryMb: number;
}

/** What an agent may spend over its whole life, across runs, repairs and revisions. */
export interface AgentBudgets {
  /** Model tokens (prompt + completion), for program generation and `ask_llm`. */
  tokens: number;
  /** Bytes written through `write_file`. */
  bytes: number;
  /** Tool-function calls. */
  calls: number;
  /** Wall-clock time spent running and generating (ms). */
  wallMs: number;
  /** Repair rounds after a model's program is refused or fails. */
  repairs: number;
}

/** What spawn and queue take: a program of the user's, or a model that writes one. */
export interface SpawnOptions {
  /** The program's source; without it a model writes the program. */
  code?: string;
  /** Language of `code` (default `js`); for a model, the language it is asked to write. */
  lang?: ProgramLang;
  /** Model name for the model path (default `qwen2.5-coder:7b`). */
  model?: string;
  limits?: Partial<AgentLimits>;
  budgets?: Partial<AgentBudgets>;
  /** Project-relative paths the agent may write under (default: the whole project, minus protected paths). */
  scope?: readonly string[];
  /** How the model is asked (over `.cairn/config.json`'s `model` settings). */
  modelOptions?: ModelOptions;
}

/** How a model-written agent asks its model; each one overrides `.cairn/config.json`'s `model` section. */
export interface ModelOptions {
  /** The largest window a request asks for (default 16,384; never more than the model has). */
  contextTokens?: number;
  /** The longest answer a program generation asks for (default 4,096). */
  maxOutputTokens?: number;
  /** Sampling temperature, 0 to 2 (default 0.2). */
  temperature?: number;
  /** The sampling seed sent with every request, for answers that can be had again. */
  seed?: number;
  /** Deadline of one answer (ms). */
  timeoutMs?: number;
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

/** A check's result and what it printed. */
export interface CheckOutput {
  result: CheckResultInfo;
  output: string;
}

/** Where a check of a proposal stands: due or running, its outcome, or `stale` once the proposal or the project moved. */
export type CheckStatus = 'pending' | 'passed' | 'failed' | 'timed-out' | 'error' | 'stale';

/** One check of one agent's proposal. */
export interface CheckResultInfo {
  name: string;
  status: CheckStatus;
  /** Runs on every proposal that reaches reviewing. */
  auto: boolean;
  exitCode?: number;
  durationMs?: number;
  /** Set for `error`: what went wrong (the command not found, the view not built). */
  error?: string;
  /** `overlay` or `copy`, and whether it ran in namespaces; `why` says why that view. */
  view?: 'overlay' | 'copy';
  sealed?: boolean;
  why?: string;
  /** Bytes the command printed (the output keeps at most the check's cap). */
  outputBytes?: number;
  truncated?: boolean;
  /** When the result last changed (ISO 8601). */
  updatedAt: string;
}

/** One file of a proposal: its text when the agent first changed it (`base`) and now (`proposed`); null where absent. */
export interface FileProposal {
  path: string;
  status: ChangeStatus;
  base: string | null;
  proposed: string | null;
  /** True where either side is not UTF-8 text (both texts are then null). */
  binary: boolean;
}

/** What starts a reviewer agent: a program (or a model), or a reviewer the project names in `.cairn/config.json`. */
export interface ReviewOptions {
  /** A reviewer named in `.cairn/config.json` (`inbox.reviewers`); it decides under that name. */
  as?: string;
  code?: string;
  lang?: ProgramLang;
  model?: string;
  limits?: Partial<AgentLimits>;
  budgets?: Partial<AgentBudgets>;
}

/** A filter for `agents()`. */
export interface AgentFilter {
  state?: AgentState | readonly AgentState[];
}

/** One overlapping region of a conflict: the human's lines, the base's, the agent's. */
export interface ConflictHunkInfo {
  ours: { start: number; lines: string[] };
  base: { start: number; lines: string[] };
  theirs: { start: number; lines: string[] };
}

/** A path an accept left alone, and why. */
export interface ConflictInfo {
  path: string;
  /** `content`, `add-add`, `modify-delete`, `delete-modify`, `binary`, `type`, `not-empty`, or `changed-on-disk`. */
  reason: string;
  /** For `type` and `not-empty`, which `force` never overrides: what the path is now and what the agent proposes. */
  detail?: string;
  hunks: ConflictHunkInfo[];
}

/** Options of an accept. */
export interface AcceptOptions {
  paths?: readonly string[];
  force?: boolean;
  partial?: boolean;
}

/** How an applied path reached the working tree. */
export type AppliedHow = 'fast-forward' | 'merged' | 'already' | 'forced';

/** A list with at least one item: what a failed outcome always names. */
export type NonEmpty<T> = [T, ...T[]];

/**
 * The outcome of an accept: what reached the working tree, and the agent after it. It is `ok` exactly when
 * nothing conflicted; otherwise `conflicts` names every path left alone and why.
 */
export type AcceptOutcome =
  | { ok: true; applied: { path: string; how: AppliedHow }[]; conflicts: []; agent: AgentInfo }
  | { ok: false; applied: { path: string; how: AppliedHow }[]; conflicts: NonEmpty<ConflictInfo>; agent: AgentInfo };

/** Options of accepts queued in turn: those of one accept (`paths` only with one agent), and whether to go on past one that stops. */
export interface AcceptManyOptions extends AcceptOptions {
  /** Go on with the next accepts after one that did not go in (a conflict, failed checks, an error). */
  keepGoing?: boolean;
}

/**
 * What one accept of a queue came to: it went in (`accepted`); it stopped at a conflict (nothing written unless
 * `partial`), at automatic checks that did not pass, or at an error (`refused`, e.g. the agent is not
 * reviewing); or it was `left` queued, never tried, behind one that stopped.
 */
export type AcceptItem =
  | { id: string; status: 'accepted'; applied: { path: string; how: AppliedHow }[]; agent: AgentInfo }
  | { id: string; status: 'conflict'; applied: { path: string; how: AppliedHow }[]; conflicts: ConflictInfo[]; agent: AgentInfo }
  | { id: string; status: 'checks-failed'; message: string; checks: CheckResultInfo[] }
  | { id: string; status: 'refused'; code: string; message: string; hint?: string }
  | { id: string; status: 'left' };

/** Accepts queued in turn, each onto the tree the one before left: `ok` exactly when every one went in. */
export interface AcceptManyOutcome {
  ok: boolean;
  accepts: AcceptItem[];
}

/** A path an undo left alone: the human changed it after the accept. */
export interface UndoConflictInfo {
  path: string;
  reason: string;
}

/** The outcome of an undo: what was restored; `ok` exactly when nothing the human changed since was in the way. */
export type UndoOutcome =
  | { ok: true; restored: string[]; conflicts: []; agent: AgentInfo }
  | { ok: false; restored: string[]; conflicts: NonEmpty<UndoConflictInfo>; agent: AgentInfo };

/** Where a replay first differed from the recorded run. */
export interface ReplayDivergence {
  seq: number;
  reason: string;
  expected?: unknown;
  actual?: unknown;
}

/** What every replay reports: journal entries compared, runs replayed, and the changes' hashes. */
interface ReplayCounts {
  entries: number;
  runs: number;
  /** Content hash of the changes the replay produced, and of those recorded. */
  changesHash: string;
  recordedChangesHash: string;
}

/** The outcome of a replay: the recorded run reproduced, or the first difference. */
export type ReplayOutcome = (ReplayCounts & { ok: true }) | (ReplayCounts & { ok: false; divergence: ReplayDivergence });

/** What `collect` deleted for good. */
export interface CollectOutcome {
  collected: { agentId: string; retiredAt: string }[];
}

/** An entry of the working tree the import leaves out. */
export interface SkippedEntryInfo {
  /** Project-relative path; bytes that are not UTF-8 are written `\xNN`. */
  path: string;
  /** Why: the name is not UTF-8, or what keeps it from being read (`permission denied`, …). */
  reason: string;
}

/** What a sync did. */
export interface SyncSummary {
  files: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  bytes: number;
  ms: number;
  /** What the import left out: entries that cannot be read, names that are not UTF-8. */
  skipped?: SkippedEntryInfo[];
}

/** What `cairn repair` found and did. */
export interface RepairOutcome {
  /** bin.db as repair found it. */
  binDb: 'sound' | 'damaged' | 'missing';
  /** Where the damaged bin.db was moved (kept, never deleted). */
  movedAside?: string;
  /** Agents given a record again, and where it came from (the old bin.db, or the agent's own database). */
  recovered: { id: string; state: AgentState; task: string; from: 'bin.db' | 'agent database' }[];
  /** Agent databases whose record could only be partly rebuilt, or not at all, and why. */
  unrecovered: { path: string; why: string }[];
  /** What was lost with the damaged bin.db, in words. */
  lost: string[];
}

/** One row of an agent's journal, for people (`cairn log`). */
export interface JournalRow {
  seq: number;
  /** The run's clock at that entry (ISO 8601). */
  time: string;
  kind: string;
  /** The tool function or effect kind (`read_file`, `fs.write`, `llm.generate`). */
  effect?: string;
  path?: string;
  /** `allowed`, `denied`, `ok`, `error`, or the event's own word. */
  decision?: string;
  bytes?: number;
  tokens?: number;
  detail?: string;
}

/** An agent's journal as a table, with the outcome of verifying its chain. */
export interface JournalView {
  agentId: string;
  rows: JournalRow[];
  /** Journal entries read (rows show the ones a person needs). */
  entries: number;
  verified: boolean;
  /** Where the chain breaks, when it does. */
  broken?: { seq: number; reason: string };
  /** The run the agent's process did not live to finish, when a queue ran the agent again from the start. */
  interrupted?: { rows: JournalRow[]; entries: number; verified: boolean };
}
