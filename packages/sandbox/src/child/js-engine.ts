import { scrubHostPaths } from '../host-paths.js';
import type { DoneMessage, RunMessage } from '../protocol.js';
import { bootstrapSource, programSource } from './js-bootstrap.js';
import { type FreshIsolate, SpareIsolate } from './spare-isolate.js';

/** What an engine needs from the child process around it. */
export interface EngineHooks {
  /** Forwards a tool call to the host; resolves to `1<json>` or `0<message>`. */
  call(name: string, args: string): Promise<string>;
  log(line: string): void;
  /** Registers what to do when the host aborts the run. */
  onAbort(stop: (status: 'timeout' | 'limit', message: string) => void): void;
}

const CPU_POLL_MS = 5;

const spares = new SpareIsolate();

/** Runs a JavaScript program in a fresh isolate under the run's limits. */
export async function runJavaScript(run: RunMessage, hooks: EngineHooks): Promise<DoneMessage> {
  const { limits } = run;
  let fresh: FreshIsolate;
  try {
    fresh = await spares.take(limits.memoryMb);
  } finally {
    // the next run's isolate is made while this one runs and while the host reads its result
    setImmediate(() => spares.prepare(limits.memoryMb));
  }
  const { isolate, context } = fresh;
  let stopped: { status: 'timeout' | 'limit'; message: string } | undefined;
  const stop = (status: 'timeout' | 'limit', message: string) => {
    if (stopped !== undefined) return;
    stopped = { status, message };
    if (!isolate.isDisposed) isolate.dispose();
  };
  hooks.onAbort(stop);
  const deadline = setTimeout(() => stop('timeout', `the run took longer than ${limits.wallMs} ms`), limits.wallMs);
  const cpuWatch = setInterval(() => {
    if (!isolate.isDisposed && Number(isolate.cpuTime) / 1e6 > limits.cpuMs)
      stop('timeout', `the program used more than ${limits.cpuMs} ms of CPU time`);
  }, CPU_POLL_MS);
  let cpuMs = 0;
  let heapBytes = 0;
  const measure = () => {
    if (isolate.isDisposed) return;
    cpuMs = Number(isolate.cpuTime) / 1e6;
    try {
      heapBytes = isolate.getHeapStatisticsSync().used_heap_size;
    } catch {
      heapBytes = 0;
    }
  };
  fresh.route.current = {
    call: (name, args) => hooks.call(name, args),
    log: (line) => hooks.log(line),
    overLimit: () => stop('limit', `the program wrote more than ${limits.outputBytes} bytes of output`),
  };
  try {
    const bootstrap = await isolate.compileScript(
      bootstrapSource({
        functions: run.functions,
        input: run.input,
        seed: run.seed,
        clockMs: run.clockMs,
        messageBytes: limits.messageBytes,
        outputBytes: limits.outputBytes,
      }),
      { filename: 'cairn-bootstrap.js' },
    );
    await bootstrap.run(context);
    const program = await isolate.compileScript(programSource(run.code), { filename: 'program.js', lineOffset: -1 });
    const outcome = (await program.run(context, { promise: true, copy: true })) as unknown;
    measure();
    return finish(run.runId, outcome, cpuMs, heapBytes);
  } catch (error) {
    measure();
    return failure(run.runId, error, stopped, cpuMs, heapBytes);
  } finally {
    clearTimeout(deadline);
    clearInterval(cpuWatch);
    delete fresh.route.current;
    if (!isolate.isDisposed) isolate.dispose();
  }
}

function finish(runId: number, outcome: unknown, cpuMs: number, heapBytes: number): DoneMessage {
  let parsed: { ok?: unknown; value?: unknown; error?: unknown };
  try {
    parsed = JSON.parse(String(outcome));
  } catch {
    return {
      type: 'done',
      runId,
      status: 'error',
      error: { name: 'Error', message: 'the program did not finish normally' },
      cpuMs,
      heapBytes,
    };
  }
  if (parsed.ok === true && typeof parsed.value === 'string')
    return { type: 'done', runId, status: 'ok', value: parsed.value, cpuMs, heapBytes };
  const error = (parsed.error ?? {}) as { name?: unknown; message?: unknown; line?: unknown; column?: unknown };
  const out: DoneMessage = {
    type: 'done',
    runId,
    status: 'error',
    error: { name: typeof error.name === 'string' ? error.name : 'Error', message: typeof error.message === 'string' ? error.message : '' },
    cpuMs,
    heapBytes,
  };
  if (typeof error.line === 'number') out.error!.line = error.line;
  if (typeof error.column === 'number') out.error!.column = error.column;
  return out;
}

function failure(
  runId: number,
  error: unknown,
  stopped: { status: 'timeout' | 'limit'; message: string } | undefined,
  cpuMs: number,
  heapBytes: number,
): DoneMessage {
  const message = error instanceof Error ? error.message : String(error);
  if (stopped !== undefined)
    return {
      type: 'done',
      runId,
      status: stopped.status,
      error: { name: stopped.status === 'limit' ? 'LimitError' : 'TimeoutError', message: stopped.message },
      cpuMs,
      heapBytes,
    };
  if (/memory limit/i.test(message))
    return {
      type: 'done',
      runId,
      status: 'memory',
      error: { name: 'MemoryError', message: 'the program ran out of memory' },
      cpuMs,
      heapBytes,
    };
  if (/disposed/i.test(message))
    return {
      type: 'done',
      runId,
      status: 'memory',
      error: { name: 'MemoryError', message: 'the isolate was stopped: it ran out of memory' },
      cpuMs,
      heapBytes,
    };
  const at = /program\.js:(\d+):(\d+)/.exec(error instanceof Error ? String(error.stack) : '');
  const done: DoneMessage = {
    type: 'done',
    runId,
    status: 'error',
    error: { name: error instanceof Error ? error.name : 'Error', message: stripHostPaths(message) },
    cpuMs,
    heapBytes,
  };
  if (at) {
    done.error!.line = Number(at[1]);
    done.error!.column = Number(at[2]);
  }
  return done;
}

/** Removes file paths of the host from a message (the program must learn nothing about the host). */
export function stripHostPaths(message: string): string {
  return scrubHostPaths(message).slice(0, 4000);
}
