import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { extname } from 'node:path';
import type { SpawnOptions } from '@cairn/daemon/client';
import { absolutePath, UsageError } from './context.js';
import { projectPathOf } from './path-argument.js';

/** The spawn options of `spawn` and `queue`: the program file, language, model, limits, budgets, scope. */
export interface SpawnFlags {
  code?: string;
  lang?: string;
  model?: string;
  wallMs?: string;
  cpuMs?: string;
  memoryMb?: string;
  tokens?: string;
  bytes?: string;
  calls?: string;
  repairs?: string;
  scope?: string[];
  contextTokens?: string;
  maxOutputTokens?: string;
  temperature?: string;
  seed?: string;
  modelTimeoutMs?: string;
}

/** Turns spawn flags into the orchestrator's options, reading `--code FILE`; `--scope` paths are read from the current folder, as git reads paths. */
export function spawnOptionsOf(flags: SpawnFlags, root: string): SpawnOptions {
  const options: SpawnOptions = {};
  if (flags.code !== undefined) {
    const path = absolutePath(flags.code);
    const bytes = readProgram(path, flags.code);
    if (!isUtf8(bytes) || bytes.includes(0))
      throw new UsageError(`the program ${flags.code} is not text (UTF-8)`, 'give --code the path of a .js or .py file');
    options.code = bytes.toString('utf8');
    if (options.code.trim() === '') throw new UsageError(`the program ${flags.code} is empty`);
    const ext = extname(path).toLowerCase();
    options.lang = ext === '.py' ? 'py' : 'js';
  }
  if (flags.lang !== undefined) {
    if (flags.lang !== 'js' && flags.lang !== 'py') throw new UsageError(`--lang must be js or py (got ${flags.lang})`);
    options.lang = flags.lang;
  }
  if (flags.model !== undefined) {
    if (flags.code !== undefined) throw new UsageError('give either --code (your program) or --model (a model writes it), not both');
    options.model = flags.model;
  }
  const limits: NonNullable<SpawnOptions['limits']> = {};
  const budgets: NonNullable<SpawnOptions['budgets']> = {};
  setNumber(limits, 'wallMs', flags.wallMs, '--wall-ms');
  setNumber(limits, 'cpuMs', flags.cpuMs, '--cpu-ms');
  setNumber(limits, 'memoryMb', flags.memoryMb, '--memory-mb');
  setNumber(budgets, 'tokens', flags.tokens, '--tokens');
  setNumber(budgets, 'bytes', flags.bytes, '--bytes');
  setNumber(budgets, 'calls', flags.calls, '--calls');
  setNumber(budgets, 'repairs', flags.repairs, '--repairs');
  if (Object.keys(limits).length > 0) options.limits = limits;
  if (Object.keys(budgets).length > 0) options.budgets = budgets;
  const scope = (flags.scope ?? []).map((path) => projectPathOf(root, path));
  // a scope that names the project's folder itself is the whole project
  if (scope.length > 0 && !scope.includes('')) options.scope = scope;
  const model: NonNullable<SpawnOptions['modelOptions']> = {};
  setNumber(model, 'contextTokens', flags.contextTokens, '--context-tokens');
  setNumber(model, 'maxOutputTokens', flags.maxOutputTokens, '--max-output-tokens');
  setNumber(model, 'temperature', flags.temperature, '--temperature');
  setNumber(model, 'seed', flags.seed, '--seed');
  setNumber(model, 'timeoutMs', flags.modelTimeoutMs, '--model-timeout-ms');
  if (Object.keys(model).length > 0) options.modelOptions = model;
  return options;
}

/** The largest program `--code` reads. */
const MAX_PROGRAM_BYTES = 4 * 1024 * 1024;

/**
 * The bytes of a program file: a regular file (a FIFO, a device or a folder is refused, never waited on or read
 * without end) of at most `MAX_PROGRAM_BYTES`.
 */
function readProgram(path: string, given: string): Buffer {
  const refuse = (why: string) => new UsageError(`cannot read the program ${given}: ${why}`, 'give --code the path of a .js or .py file');
  let fd: number;
  try {
    // non-blocking: opening a FIFO with no writer would otherwise wait for one
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw refuse(
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (error as Error).message,
    );
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw refuse('it is a folder');
    if (!stats.isFile()) throw refuse(`it is ${stats.isFIFO() ? 'a FIFO' : stats.isSocket() ? 'a socket' : 'a device'}, not a file`);
    if (stats.size > MAX_PROGRAM_BYTES) throw refuse(`it is larger than ${MAX_PROGRAM_BYTES >> 20} MiB`);
    const bytes = Buffer.alloc(stats.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function setNumber<K extends string>(target: Partial<Record<K, number>>, key: K, raw: string | undefined, flag: string): void {
  if (raw === undefined) return;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || raw.trim() === '')
    throw new UsageError(`${flag} must be a number (got ${JSON.stringify(raw)})`);
  target[key] = value;
}
