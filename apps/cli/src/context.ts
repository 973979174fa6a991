import { isAbsolute, resolve } from 'node:path';
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

/** A task given as words (`cairn spawn fix the bug`) or as one quoted argument. */
export function taskOf(words: readonly string[]): string {
  const task = words.join(' ').trim();
  if (task === '')
    throw new UsageError('a task is required: say what the agent should do', 'cairn spawn --code fix.js "use const instead of var"');
  return task;
}
