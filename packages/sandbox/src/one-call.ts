import { type Limits, resolveLimits } from './limits.js';
import type { CallRecord, RunResult } from './run-result.js';
import { applyToolCall, type ToolHandler } from './tool-call.js';

/** One call of a tool function: a program of one line, `return await name(...args);`. */
export interface OneCall {
  name: string;
  args: readonly unknown[];
}

/**
 * Runs a program that is one tool call and nothing else (`return await name(...args);`) on the host, without an
 * isolate: the same checks on the call's arguments and result as a call from an isolate, and the same result as
 * running that program in the sandbox gives (a failed call is the program's uncaught `ToolError`). For callers
 * outside the sandbox (an MCP client), whose every call is such a program: a replay runs the program itself.
 */
export async function runOneCall(
  call: OneCall,
  request: { functions: Readonly<Record<string, ToolHandler>>; limits?: Partial<Limits> },
): Promise<RunResult> {
  const started = performance.now();
  const limits = resolveLimits(request.limits);
  const calls: CallRecord[] = [];
  const stats = () => ({ wallMs: performance.now() - started, cpuMs: 0, calls: calls.length, heapBytes: 0 });
  // where the isolate throws, and where its program's uncaught error is reported: the call on line 1
  const thrown = (message: string): RunResult => ({
    status: 'error',
    error: { name: 'ToolError', message, line: 1, column: 8 },
    logs: [],
    calls,
    stats: stats(),
  });
  const argsJson = JSON.stringify(call.args);
  if (argsJson.length > limits.messageBytes) return thrown(`${call.name}: arguments are larger than ${limits.messageBytes} bytes`);
  const record: CallRecord = { name: call.name, args: [], ok: false, value: undefined, ms: 0 };
  calls.push(record);
  const answer = await applyToolCall(request.functions, call.name, argsJson, limits, record);
  if (!answer.ok) return thrown(answer.payload);
  if (answer.payload.length > limits.outputBytes)
    return {
      status: 'limit',
      error: { name: 'LimitError', message: `the program's result and output exceed ${limits.outputBytes} bytes` },
      logs: [],
      calls,
      stats: stats(),
    };
  return { status: 'ok', value: JSON.parse(answer.payload), logs: [], calls, stats: stats() };
}
