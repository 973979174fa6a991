import { readFileSync } from 'node:fs';
import { extname, isAbsolute, resolve } from 'node:path';
import { CairnError, isCairnError, type SpawnOptions } from '@cairn/orchestrator';
import { describeSystemError } from './system-error.js';
import type { Output } from './output.js';

/** The options every command takes. */
export interface CommonOptions {
  project?: string;
  json?: boolean;
  debug?: boolean;
}

/** What a command runs with: its output and the project it works on. */
export interface CommandContext {
  out: Output;
  /** The project's folder (empty for a command that makes its own, such as the demo). */
  root: string;
}

/** A usage error: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** A failure the CLI itself finds (no project here, an unusable CAIRN_HOME): exit 1, with a code for `--json`. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
  constructor(
    readonly code: 'CAIRN_NOT_A_PROJECT' | 'CAIRN_PROJECT' | 'CAIRN_HOME' | 'CAIRN_CWD',
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

let folderGone = false;

/** The folder a command runs in, or a clear error when it was deleted under the shell. */
export function currentFolder(): string {
  if (!folderGone) {
    try {
      return process.cwd();
    } catch {
      folderGone = true;
    }
  }
  throw new CommandError(
    'CAIRN_CWD',
    'the current folder no longer exists (it was deleted or moved)',
    'cd to a folder that exists, or give --project DIR and other paths in full',
  );
}

/**
 * When the current folder was deleted, moves into the project, so that the processes Cairn starts (sandbox
 * children, a daemon) begin in a folder that exists; relative paths stay refused.
 */
export function leaveDeletedFolder(root: string): void {
  try {
    process.cwd();
  } catch {
    folderGone = true;
    process.chdir(root);
  }
}

/** A path given on the command line, made absolute against the current folder. */
export function absolutePath(path: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(currentFolder(), path);
}

/** Error codes that mean the command line was wrong (exit 2) rather than that something failed (exit 1). */
const USAGE_CODES = new Set(['CAIRN_INVALID_ARGUMENT', 'CAIRN_INVALID_PATH']);

/** Prints an error the way the CLI contract says, and returns the exit code it calls for. */
export function reportError(out: Output, error: unknown): number {
  if (error instanceof UsageError) {
    out.error('CAIRN_USAGE', error.message, error.hint);
    return 2;
  }
  if (error instanceof CommandError) {
    out.error(error.code, error.message, error.hint);
    return 1;
  }
  if (isCairnError(error)) {
    out.error(error.code, error.message, error.hint);
    if (out.debug && error.stack !== undefined) process.stderr.write(error.stack + '\n');
    return USAGE_CODES.has(error.code) ? 2 : 1;
  }
  const system = describeSystemError(error);
  if (system !== undefined) {
    out.error(system.code, system.message, system.hint);
    if (out.debug && error instanceof Error && error.stack !== undefined) process.stderr.write(error.stack + '\n');
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  out.error('CAIRN_INTERNAL', message, out.debug ? undefined : 'run again with --debug to see where it failed');
  if (out.debug && error instanceof Error && error.stack !== undefined) process.stderr.write(error.stack + '\n');
  return 1;
}

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
}

/** Turns spawn flags into the orchestrator's options, reading `--code FILE`. */
export function spawnOptionsOf(flags: SpawnFlags): SpawnOptions {
  const options: SpawnOptions = {};
  if (flags.code !== undefined) {
    const path = absolutePath(flags.code);
    try {
      options.code = readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'permission denied'
            : code === 'EISDIR'
              ? 'it is a folder'
              : (error as Error).message;
      throw new UsageError(`cannot read the program ${flags.code}: ${why}`, 'give --code the path of a .js or .py file');
    }
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
  if (flags.scope !== undefined && flags.scope.length > 0) options.scope = flags.scope;
  return options;
}

function setNumber<K extends string>(target: Partial<Record<K, number>>, key: K, raw: string | undefined, flag: string): void {
  if (raw === undefined) return;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || raw.trim() === '')
    throw new UsageError(`${flag} must be a number (got ${JSON.stringify(raw)})`);
  target[key] = value;
}

/** A task given as words (`cairn spawn fix the bug`) or as one quoted argument. */
export function taskOf(words: readonly string[]): string {
  const task = words.join(' ').trim();
  if (task === '')
    throw new UsageError('a task is required: say what the agent should do', 'cairn spawn --code fix.js "use const instead of var"');
  return task;
}

/** A CairnError for something only a running daemon can do. */
export function needsDaemon(what: string): CairnError {
  return new CairnError('CAIRN_DAEMON', `${what} needs a running daemon, and none runs for this project`, {
    hint: 'start one with `cairn up` (or `cairn up --detach`)',
  });
}
