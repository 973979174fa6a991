import { scrubHostPaths } from './host-paths.js';
import type { Limits } from './limits.js';
import { plainJsonProblem } from './plain-json.js';
import type { CallRecord } from './run-result.js';

/** A host function a program may call; it receives the program's (JSON) arguments. */
export type ToolHandler = (...args: unknown[]) => unknown;

/** Arguments and results larger than this are summarised in `calls`, so a call flood cannot fill the host's memory. */
const MAX_RECORDED_JSON = 16 * 1024;
const MAX_ERROR_MESSAGE = 2_000;

/**
 * Answers one call of a program on the host: finds the handler, reads the JSON arguments, calls it, and checks
 * its result is plain JSON within the message limit. Made total: whatever goes wrong is the error the program
 * gets (without host paths). Fills in `record` as it goes; returns the reply: the result's JSON, or the error.
 */
export async function applyToolCall(
  functions: Readonly<Record<string, ToolHandler>>,
  name: string,
  argsJson: string,
  limits: Limits,
  record: CallRecord,
): Promise<{ ok: boolean; payload: string }> {
  const start = performance.now();
  const handler = Object.hasOwn(functions, name) ? functions[name] : undefined;
  let args: unknown;
  try {
    args = argsJson.length > limits.messageBytes ? undefined : JSON.parse(argsJson);
  } catch {
    args = undefined;
  }
  if (handler === undefined || !Array.isArray(args)) {
    record.value =
      handler === undefined ? `no tool function "${name}"` : `${name}: arguments were not a JSON array within ${limits.messageBytes} bytes`;
    return { ok: false, payload: String(record.value) };
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
    return { ok: true, payload: json };
  } catch (error) {
    const text = cleanMessage(error);
    record.value = text;
    return { ok: false, payload: text };
  } finally {
    record.ms = performance.now() - start;
  }
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
