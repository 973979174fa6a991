import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CheckResult, checkProgram, checkPythonProgram } from './check.js';
import { SandboxError } from './errors.js';
import { type Limits, resolveLimits } from './limits.js';
import type { Engine } from './protocol.js';
import type { RunResult } from './run-result.js';
import { runSession, type ToolHandler } from './run-session.js';
import { WorkerPool } from './worker-pool.js';

/** Options of `createSandbox`. */
export interface SandboxOptions {
  /** Child processes at most, each running one program at a time (default 2); one is started at once, the others as runs overlap. */
  poolSize?: number;
  /** Limits applied where a run does not give its own. */
  limits?: Partial<Limits>;
}

/** One program to run. */
export interface RunRequest {
  code: string;
  /** `js` (default) or `python`. */
  engine?: Engine;
  /** The only things the program can do: each name becomes an async global. */
  functions?: Readonly<Record<string, ToolHandler>>;
  limits?: Partial<Limits>;
  /** The program's `input` global (a JSON value). */
  input?: unknown;
  /** Seed of Math.random (default 1). */
  seed?: number;
  /** What Date.now() returns, in ms since the epoch (default 0). */
  clock?: number;
}

/** Runs untrusted programs; `close` when done. */
export interface Sandbox {
  run(request: RunRequest): Promise<RunResult>;
  check(code: string, engine?: Engine): CheckResult;
  close(): Promise<void>;
}

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Creates a sandbox with a pool of child processes (forked with --no-node-snapshot), one of them warm from the start. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const baseLimits = resolveLimits(options.limits);
  const poolSize = options.poolSize ?? 2;
  if (!Number.isSafeInteger(poolSize) || poolSize < 1)
    throw new SandboxError('SANDBOX_INVALID_REQUEST', 'poolSize must be a positive integer');
  const pool = new WorkerPool(childEntry(), poolSize);
  let nextRunId = 1;
  let closed = false;
  const check = (code: string, engine: Engine = 'js') => (engine === 'python' ? checkPythonProgram(code) : checkProgram(code));

  return {
    check,
    async run(request: RunRequest): Promise<RunResult> {
      if (closed) throw new SandboxError('SANDBOX_CLOSED', 'the sandbox is closed');
      const prepared = prepare(request, baseLimits);
      const checked = check(request.code, prepared.engine);
      if (!checked.ok) {
        const first = checked.problems[0]!;
        return {
          status: 'rejected',
          error: {
            name: first.kind === 'syntax' ? 'SyntaxError' : 'ForbiddenError',
            message: checked.report,
            line: first.line,
            column: first.column,
          },
          logs: [],
          calls: [],
          stats: { wallMs: 0, cpuMs: 0, calls: 0, heapBytes: 0 },
        };
      }
      // A child can die while idle (killed from outside) before the pool hears of it. A run that crashed
      // before making a single tool call has done nothing, so it is retried once on a fresh child; a program
      // that really crashes its child crashes the second one too and is reported.
      for (let attempt = 1; ; attempt++) {
        const worker = await pool.acquire();
        let healthy = false;
        let result: RunResult;
        try {
          const outcome = await runSession(worker, { runId: nextRunId++, ...prepared });
          healthy = outcome.healthy;
          result = outcome.result;
        } finally {
          pool.release(worker, healthy);
        }
        if (attempt === 1 && result.status === 'crashed' && result.calls.length === 0 && !closed) continue;
        return result;
      }
    },
    async close(): Promise<void> {
      closed = true;
      pool.close();
    },
  };
}

function prepare(request: RunRequest, base: Limits) {
  if (typeof request !== 'object' || request === null) throw new SandboxError('SANDBOX_INVALID_REQUEST', 'run() takes a request object');
  if (typeof request.code !== 'string') throw new SandboxError('SANDBOX_INVALID_REQUEST', 'request.code must be a string');
  const engine = request.engine ?? 'js';
  if (engine !== 'js' && engine !== 'python') throw new SandboxError('SANDBOX_INVALID_REQUEST', `unknown engine "${String(engine)}"`);
  const functions = request.functions ?? {};
  for (const [name, handler] of Object.entries(functions)) {
    if (!NAME.test(name)) throw new SandboxError('SANDBOX_INVALID_REQUEST', `"${name}" is not a valid function name`);
    if (typeof handler !== 'function') throw new SandboxError('SANDBOX_INVALID_REQUEST', `functions.${name} must be a function`);
  }
  const limits = resolveLimits({ ...base, ...(request.limits ?? {}) });
  let input: string | undefined;
  try {
    input = JSON.stringify(request.input ?? null);
  } catch (cause) {
    throw new SandboxError('SANDBOX_INVALID_REQUEST', 'request.input must be a JSON value', { cause });
  }
  if (typeof input !== 'string') throw new SandboxError('SANDBOX_INVALID_REQUEST', 'request.input must be a JSON value');
  if (input.length > limits.messageBytes)
    throw new SandboxError('SANDBOX_INVALID_REQUEST', `request.input is larger than ${limits.messageBytes} bytes`);
  const seed = request.seed ?? 1;
  const clockMs = request.clock ?? 0;
  if (!Number.isFinite(seed) || !Number.isFinite(clockMs))
    throw new SandboxError('SANDBOX_INVALID_REQUEST', 'seed and clock must be finite numbers');
  return { engine, code: request.code, functions, input, limits, seed, clockMs };
}

/** The built child entry: beside this module when running from dist/, else the package's dist/. */
function childEntry(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, 'child', 'child-main.js');
  if (existsSync(sibling)) return sibling;
  const built = join(here, '..', 'dist', 'child', 'child-main.js');
  if (!existsSync(built))
    throw new SandboxError('SANDBOX_CHILD_FAILED', `the sandbox child is not built: run "pnpm build" (looked for ${built})`);
  return built;
}
