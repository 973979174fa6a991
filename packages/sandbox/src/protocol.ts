import type { Limits } from './limits.js';
import type { ProgramError, RunStatus } from './run-result.js';

/** The languages a program may be written in. */
export type Engine = 'js' | 'python';

/** Parent to child: start a run. */
export interface RunMessage {
  type: 'run';
  runId: number;
  engine: Engine;
  code: string;
  functions: string[];
  /** JSON text of the program's `input`. */
  input: string;
  limits: Limits;
  seed: number;
  clockMs: number;
}

/** Parent to child: the answer to a tool call; `payload` is JSON text of the result, or the error message. */
export interface ReplyMessage {
  type: 'reply';
  runId: number;
  callId: number;
  ok: boolean;
  payload: string;
}

/** Parent to child: stop a run now. */
export interface AbortMessage {
  type: 'abort';
  runId: number;
  status: 'timeout' | 'limit';
  message: string;
}

export type ToChild = RunMessage | ReplyMessage | AbortMessage;

/** Child to parent: a program called a tool function; `args` is JSON text of the argument array. */
export interface CallMessage {
  type: 'call';
  runId: number;
  callId: number;
  name: string;
  args: string;
}

/** Child to parent: one line the program logged. */
export interface LogMessage {
  type: 'log';
  runId: number;
  line: string;
}

/** Child to parent: the run ended. `value` is JSON text of the result when ok. */
export interface DoneMessage {
  type: 'done';
  runId: number;
  status: Exclude<RunStatus, 'crashed'>;
  value?: string;
  error?: ProgramError;
  cpuMs: number;
  heapBytes: number;
}

export type FromChild = { type: 'ready' } | CallMessage | LogMessage | DoneMessage;

const STATUSES = new Set(['ok', 'error', 'timeout', 'memory', 'limit', 'rejected']);

/** Parses a message from a child process; anything unexpected is undefined (and the child is not trusted further). */
export function parseFromChild(message: unknown): FromChild | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const m = message as Record<string, unknown>;
  const int = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  switch (m.type) {
    case 'ready':
      return { type: 'ready' };
    case 'call':
      return int(m.runId) && int(m.callId) && typeof m.name === 'string' && typeof m.args === 'string'
        ? { type: 'call', runId: m.runId as number, callId: m.callId as number, name: m.name, args: m.args }
        : undefined;
    case 'log':
      return int(m.runId) && typeof m.line === 'string' ? { type: 'log', runId: m.runId as number, line: m.line } : undefined;
    case 'done': {
      if (!int(m.runId) || typeof m.status !== 'string' || !STATUSES.has(m.status)) return undefined;
      if (m.value !== undefined && typeof m.value !== 'string') return undefined;
      const error = parseProgramError(m.error);
      const done: DoneMessage = {
        type: 'done',
        runId: m.runId as number,
        status: m.status as DoneMessage['status'],
        cpuMs: typeof m.cpuMs === 'number' && Number.isFinite(m.cpuMs) ? m.cpuMs : 0,
        heapBytes: typeof m.heapBytes === 'number' && Number.isFinite(m.heapBytes) ? m.heapBytes : 0,
      };
      if (typeof m.value === 'string') done.value = m.value;
      if (error !== undefined) done.error = error;
      return done;
    }
    default:
      return undefined;
  }
}

function parseProgramError(value: unknown): ProgramError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const e = value as Record<string, unknown>;
  const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : undefined);
  const error: ProgramError = { name: text(e.name, 200) ?? 'Error', message: text(e.message, 4000) ?? '' };
  if (typeof e.line === 'number' && Number.isSafeInteger(e.line) && e.line > 0) error.line = e.line;
  if (typeof e.column === 'number' && Number.isSafeInteger(e.column) && e.column > 0) error.column = e.column;
  return error;
}
