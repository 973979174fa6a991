import { type AgentFSError, isAgentFSError } from '../errors.js';

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

/** Runs `fn` and returns the AgentFSError it threw; anything else (or no throw) fails the test. */
export function errorOf(fn: () => unknown): AgentFSError {
  try {
    fn();
  } catch (error) {
    if (isAgentFSError(error)) return error;
    throw error;
  }
  throw new Error('expected an AgentFSError');
}
