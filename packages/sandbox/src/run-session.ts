import type { ChildOutcome, ChildWorker } from './child-worker.js';
import { scrubHostPaths } from './host-paths.js';
import type { Limits } from './limits.js';
import { plainJsonProblem } from './plain-json.js';
import type { Engine, RunMessage } from './protocol.js';
import type { CallRecord, ProgramError, RunResult, RunStatus } from './run-result.js';

/** A host function a program may call; it receives the program's (JSON) arguments. */
export type ToolHandler = (...args: unknown[]) => unknown;

const ABORT_GRACE_MS = 500;
/** Arguments and results larger than this are summarised in `calls`, so a call flood cannot fill the host's memory. */
const MAX_RECORDED_JSON = 16 * 1024;
const MAX_LOG_LINE = 10_000;
const MAX_ERROR_MESSAGE = 2_000;

/** Everything one run needs on the host side. */
export interface SessionRequest {
  runId: number;
  engine: Engine;
  code: string;
  functions: Readonly<Record<string, ToolHandler>>;
  input: string;
  limits: Limits;
  seed: number;
  clockMs: number;
}

/**
 * Carries one run on one child: answers tool calls through the host handlers (made total: whatever a
 * handler throws becomes an error the program can catch, without host paths), counts calls and output,
 * and holds the wall-clock deadline, killing the child if it does not stop in time.
 */
export async function runSession(worker: ChildWorker, request: SessionRequest): Promise<{ result: RunResult; healthy: boolean }> {
  const started = performance.now();
  const { limits } = request;
  const calls: CallRecord[] = [];
  const logs: string[] = [];
  let outputBytes = 0;
  let aborted: { status: 'timeout' | 'limit'; message: string } | undefined;
  let killed = false;
  let ended = false;

  const abort = (status: 'timeout' | 'limit', message: string) => {
    if (aborted !== undefined) return;
    aborted = { status, message };
    worker.send({ type: 'abort', runId: request.runId, status, message });
    killTimer = setTimeout(() => {
      killed = true;
      worker.kill();
    }, ABORT_GRACE_MS);
  };
  let killTimer: NodeJS.Timeout | undefined;
  const deadline = setTimeout(() => abort('timeout', `the run took longer than ${limits.wallMs} ms`), limits.wallMs + 50);

  const message: RunMessage = { type: 'run', ...request, functions: Object.keys(request.functions) };
  const outcome: ChildOutcome = await worker.execute(message, {
    onLog(line) {
      outputBytes += line.length + 1;
      if (outputBytes > limits.outputBytes) {
        abort('limit', `the program wrote more than ${limits.outputBytes} bytes of output`);
        return;
      }
      logs.push(line.length > MAX_LOG_LINE ? line.slice(0, MAX_LOG_LINE) + '…' : line);
    },
    onCall(callId, name, args) {
      void answerCall(callId, name, args);
    },
  });
  ended = true;
  clearTimeout(deadline);
  if (killTimer) clearTimeout(killTimer);

  async function answerCall(callId: number, name: string, argsJson: string): Promise<void> {
    const reply = (ok: boolean, payload: string) => worker.send({ type: 'reply', runId: request.runId, callId, ok, payload });
    if (aborted !== undefined || ended) {
      reply(false, 'the run has ended');
      return;
    }
    if (calls.length >= limits.calls) {
      reply(false, `call limit reached (${limits.calls})`);
      abort('limit', `the program made more than ${limits.calls} tool calls`);
      return;
    }
    const record: CallRecord = { name, args: [], ok: false, value: undefined, ms: 0 };
    calls.push(record);
    const start = performance.now();
    const handler = Object.hasOwn(request.functions, name) ? request.functions[name] : undefined;
    let args: unknown;
    try {
      args = argsJson.length > limits.messageBytes ? undefined : JSON.parse(argsJson);
    } catch {
      args = undefined;
    }
    if (handler === undefined || !Array.isArray(args)) {
      record.value =
        handler === undefined
          ? `no tool function "${name}"`
          : `${name}: arguments were not a JSON array within ${limits.messageBytes} bytes`;
      reply(false, String(record.value));
      return;
    }
    record.args = argsJson.length <= MAX_RECORDED_JSON ? args : [`[${argsJson.length} bytes of arguments not kept]`];
    try {
      const value = await handler(...args);
      const problem = value === undefined ? undefined : plainJsonProblem(value);
      if (problem !== undefined) throw new TypeError(`${name} returned a value that is not plain JSON: ${problem}`);
      const json = value === undefined ? 'null' : JSON.stringify(value);
      if (json.length > limits.messageBytes) throw new RangeError(`${name} returned more than ${limits.messageBytes} bytes`);
      record.ok = true;
      record.value = json.length <= MAX_RECORDED_JSON ? JSON.parse(json) : `[${json.length} bytes of result not kept]`;
      reply(true, json);
    } catch (error) {
      const text = cleanMessage(error);
      record.value = text;
      reply(false, text);
    } finally {
      record.ms = performance.now() - start;
    }
  }

  const wallMs = performance.now() - started;
  const stats = (cpuMs: number, heapBytes: number) => ({ wallMs, cpuMs, calls: calls.length, heapBytes });
  if (outcome.kind === 'died') {
    if (killed && aborted !== undefined)
      return {
        result: {
          status: aborted.status,
          error: { name: aborted.status === 'limit' ? 'LimitError' : 'TimeoutError', message: aborted.message },
          logs,
          calls,
          stats: stats(0, 0),
        },
        healthy: false,
      };
    if (outcome.outOfMemory)
      return {
        result: {
          status: 'memory',
          error: { name: 'MemoryError', message: 'the program ran out of memory (its sandbox process was stopped)' },
          logs,
          calls,
          stats: stats(0, 0),
        },
        healthy: false,
      };
    return {
      result: {
        status: 'crashed',
        error: { name: 'CrashError', message: `the sandbox process ${outcome.reason}` },
        logs,
        calls,
        stats: stats(0, 0),
      },
      healthy: false,
    };
  }
  const done = outcome.done;
  let status: RunStatus = aborted?.status ?? done.status;
  let error: ProgramError | undefined = aborted
    ? { name: aborted.status === 'limit' ? 'LimitError' : 'TimeoutError', message: aborted.message }
    : done.error;
  let value: unknown;
  if (status === 'ok' && done.value !== undefined) {
    if (outputBytes + done.value.length > limits.outputBytes) {
      status = 'limit';
      error = { name: 'LimitError', message: `the program's result and output exceed ${limits.outputBytes} bytes` };
    } else {
      try {
        value = JSON.parse(done.value);
      } catch {
        status = 'error';
        error = { name: 'TypeError', message: 'the result was not JSON' };
      }
    }
  }
  const result: RunResult = { status, logs, calls, stats: stats(done.cpuMs, done.heapBytes) };
  if (status === 'ok') result.value = value;
  if (error !== undefined && status !== 'ok') result.error = error;
  return { result, healthy: true };
}

/** The message of whatever a handler threw, without host file paths or stack frames. */
function cleanMessage(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? `${error.message}` : typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    text = 'the tool function failed';
  }
  return scrubHostPaths(text).split('\n')[0]!.slice(0, MAX_ERROR_MESSAGE) || 'the tool function failed';
}
