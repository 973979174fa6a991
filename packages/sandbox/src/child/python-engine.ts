import { Monty, MontyComplete, MontyNameLookup, type MontySnapshot } from '@pydantic/monty';
import type { DoneMessage, RunMessage } from '../protocol.js';
import type { EngineHooks } from './js-engine.js';
import { stripHostPaths } from './js-engine.js';
import { EXIT_FUNCTIONS, exitMessage, exitStatusOf, rewriteExits } from './python-exit.js';

type Progress = MontySnapshot | MontyNameLookup | MontyComplete;

/**
 * Runs a Python program with Monty: the program is a module whose last expression is its value (or the
 * variable `result`); tool functions are called through Monty's start/resume loop, one call at a time. A
 * program that exits (`SystemExit`, `sys.exit`, `exit`, `quit`) ends as Python's would: status 0 is a normal
 * end, any other an `error` named `SystemExit` that gives the status.
 */
export async function runPython(run: RunMessage, hooks: EngineHooks): Promise<DoneMessage> {
  const { limits } = run;
  const started = Date.now();
  let stopped: { status: 'timeout' | 'limit'; message: string } | undefined;
  hooks.onAbort((status, message) => (stopped ??= { status, message }));
  let line = '';
  const print = (_stream: string, text: string) => {
    line += text;
    let newline = line.indexOf('\n');
    while (newline >= 0) {
      hooks.log(line.slice(0, newline));
      line = line.slice(newline + 1);
      newline = line.indexOf('\n');
    }
  };
  const remainingSecs = () => Math.max(0.001, (limits.wallMs - (Date.now() - started)) / 1000);
  const monitored = () => ({ maxDurationSecs: Math.min(limits.cpuMs / 1000, remainingSecs()), maxMemory: limits.memoryMb * 1024 * 1024 });
  try {
    const monty = new Monty(rewriteExits(run.code), { inputs: ['input'], scriptName: 'program.py' });
    let progress: Progress = monty.start({
      inputs: { input: JSON.parse(run.input) },
      limits: monitored(),
      printCallback: print,
    }) as Progress;
    while (!(progress instanceof MontyComplete)) {
      if (stopped) break;
      if (progress instanceof MontyNameLookup) {
        progress = progress.resume({}) as Progress;
        continue;
      }
      const name = progress.functionName;
      if (!run.functions.includes(name) && EXIT_FUNCTIONS.has(name)) {
        progress = progress.resume({
          exception: { type: 'SystemExit', message: exitMessage(toJson(progress.args) as unknown[]) },
        }) as Progress;
        continue;
      }
      if (!run.functions.includes(name)) {
        progress = progress.resume({ exception: { type: 'NameError', message: `name '${name}' is not defined` } }) as Progress;
        continue;
      }
      let args: string;
      try {
        args = JSON.stringify(toJson(progress.args));
      } catch {
        progress = progress.resume({ exception: { type: 'TypeError', message: `${name}: arguments must be JSON values` } }) as Progress;
        continue;
      }
      const reply = await hooks.call(name, args);
      if (stopped) break;
      progress = (
        reply[0] === '1'
          ? progress.resume({ returnValue: JSON.parse(reply.slice(1)) })
          : progress.resume({ exception: { type: 'RuntimeError', message: reply.slice(1) } })
      ) as Progress;
    }
    if (line !== '') hooks.log(line);
    if (stopped)
      return {
        type: 'done',
        runId: run.runId,
        status: stopped.status,
        error: { name: stopped.status === 'limit' ? 'LimitError' : 'TimeoutError', message: stopped.message },
        cpuMs: Date.now() - started,
        heapBytes: 0,
      };
    const value = JSON.stringify(toJson((progress as MontyComplete).output) ?? null);
    return { type: 'done', runId: run.runId, status: 'ok', value, cpuMs: Date.now() - started, heapBytes: 0 };
  } catch (error) {
    if (line !== '') hooks.log(line);
    const exit = exitOf(error);
    if (exit?.status === 0)
      return { type: 'done', runId: run.runId, status: 'ok', value: 'null', cpuMs: Date.now() - started, heapBytes: 0 };
    return pythonFailure(run.runId, error, Date.now() - started, run.code, exit);
  }
}

/** The exit a `SystemExit` that ended the program stands for; undefined for any other error. */
function exitOf(error: unknown): { status: number; text?: string } | undefined {
  const exception = (error as { exception?: { typeName?: string; message?: string } }).exception;
  return exception?.typeName === 'SystemExit' ? exitStatusOf(exception.message ?? '') : undefined;
}

function pythonFailure(runId: number, error: unknown, ms: number, code: string, exit?: { status: number; text?: string }): DoneMessage {
  const e = error as {
    exception?: { typeName?: string; message?: string };
    message?: string;
    traceback?: () => { line: number; column: number }[];
  };
  const typeName = e.exception?.typeName ?? 'Error';
  const message =
    exit === undefined
      ? stripHostPaths(e.exception?.message ?? e.message ?? String(error))
      : `the program exited with status ${exit.status}${exit.text === undefined ? '' : `: ${stripHostPaths(exit.text)}`}`;
  const status =
    typeName === 'TimeoutError' ? 'timeout' : typeName === 'MemoryError' ? 'memory' : typeName === 'SyntaxError' ? 'rejected' : 'error';
  const done: DoneMessage = { type: 'done', runId, status, error: { name: typeName, message }, cpuMs: ms, heapBytes: 0 };
  try {
    const frames = typeof e.traceback === 'function' ? e.traceback() : [];
    const last = frames[frames.length - 1];
    const at = last ?? (typeName === 'SyntaxError' ? syntaxErrorPosition(error, code) : undefined);
    if (at !== undefined) {
      done.error!.line = at.line;
      done.error!.column = at.column;
    }
  } catch {
    // No traceback: the position stays unknown.
  }
  return done;
}

/**
 * Where a syntax error is, read from Monty's rendering of it: `File "program.py", line N`, the source line
 * stripped of its indentation and shown indented four spaces, then a line marking the column with `~` or `^`.
 */
function syntaxErrorPosition(error: unknown, code: string): { line: number; column: number } | undefined {
  const display = (error as { display?: (format: string) => string }).display;
  if (typeof display !== 'function') return undefined;
  const lines = String(display.call(error, 'traceback')).split('\n');
  const at = lines.findIndex((text) => /^\s*File "program\.py", line \d+/.test(text));
  if (at < 0) return undefined;
  const line = Number(/line (\d+)/.exec(lines[at]!)![1]);
  const source = lines[at + 1] ?? '';
  const marker = lines[at + 2] ?? '';
  const caret = marker.search(/[~^]/);
  const shownIndent = source.length - source.trimStart().length;
  const original = code.split(/\r?\n/)[line - 1] ?? '';
  const originalIndent = original.length - original.trimStart().length;
  const marked = caret >= shownIndent && /^\s*[~^]+\s*$/.test(marker);
  return { line, column: marked ? originalIndent + caret - shownIndent + 1 : 1 };
}

/** Monty values to JSON values: dicts (Maps) to objects, tuples and sets to arrays. */
function toJson(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), toJson(v)]));
  if (value instanceof Set) return [...value].map(toJson);
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  return value;
}
