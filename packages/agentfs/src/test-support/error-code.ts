import { isAgentFSError } from '../errors.js';

/** Runs `fn` and returns the AgentFSError code it threw (undefined when it did not throw). */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isAgentFSError(error)) return error.code;
    throw error;
  }
  return undefined;
}
