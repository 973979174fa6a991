import { isCairnError } from '@cairn/daemon/client';
import { CommandError, UsageError } from './context.js';
import type { Output } from './output.js';
import { describeSystemError } from './system-error.js';

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
