import type { ChildOutcome, ChildWorker } from './child-worker.js';
import type { Limits } from './limits.js';
import type { Engine, RunMessage } from './protocol.js';
import type { CallRecord, ProgramError, RunResult, RunStatus } from './run-result.js';
import type { ToolHandler } from './tool-call.js';
import { applyToolCall } from './tool-call.js';

export type { ToolHandler } from './tool-call.js';

const ABORT_GRACE_MS = 500;
const MAX_LOG_LINE = 10_000;

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
    const answer = await applyToolCall(request.functions, name, argsJson, limits, record);
    reply(answer.ok, answer.payload);
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
