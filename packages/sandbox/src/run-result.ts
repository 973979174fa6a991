/** How a run ended. */
export type RunStatus = 'ok' | 'error' | 'timeout' | 'memory' | 'limit' | 'crashed' | 'rejected';

/** Where and what a program's error was; line and column are 1-based in the program's source. */
export interface ProgramError {
  name: string;
  message: string;
  line?: number;
  column?: number;
}

/** One tool-function call as the host saw it. */
export interface CallRecord {
  name: string;
  args: unknown[];
  ok: boolean;
  /** The result, or the error message given to the program. */
  value: unknown;
  ms: number;
}

/** Measurements of a run. */
export interface RunStats {
  wallMs: number;
  cpuMs: number;
  calls: number;
  heapBytes: number;
}

/** What `sandbox.run` always comes back with. */
export interface RunResult {
  status: RunStatus;
  /** The program's result (`return` value), a JSON value; undefined unless status is ok. */
  value?: unknown;
  error?: ProgramError;
  logs: string[];
  calls: CallRecord[];
  stats: RunStats;
}

/** A problem `check` found before anything ran. */
export interface CheckProblem {
  kind: 'syntax' | 'forbidden';
  message: string;
  line: number;
  column: number;
}
