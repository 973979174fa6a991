/** The language of an agent's program. */
export type ProgramLang = 'js' | 'py';

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
  /** Run this program (an agent CLI) in a writable sealed view; what it writes becomes the proposal. */
  exec?: ExecSpec;
}

/**
 * An agent that is a program run in a writable sealed view of the project (`cairn spawn --exec -- claude`):
 * the command, the names of the environment variables it gets (their values are read when it runs, never
 * kept), the entries of the home folder bound in read-only, and where in the project it starts.
 */
export interface ExecSpec {
  command: string[];
  env: string[];
  home: string[];
  cwd?: string;
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
