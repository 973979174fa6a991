import { join } from 'node:path';
import { isAgentFSError } from '@cairn/agentfs';
import { withExclusiveLock } from '@cairn/agentfs/exclusive-lock';
import { CairnError } from '@cairn/api';
import type { ProjectLayout } from './layout.js';

/**
 * Runs an operation that changes stable.db and the working tree together (an accept, an undo, the recovery of
 * one a killed process left) while holding the project's lock, so operations of several processes (a daemon,
 * CLIs) queue instead of interleaving: each one merges on top of the one before.
 */
export function withProjectLock<T>(layout: Pick<ProjectLayout, 'agentfsDir'>, fn: () => T): T {
  try {
    return withExclusiveLock(join(layout.agentfsDir, 'operations.lock'), fn);
  } catch (error) {
    if (isAgentFSError(error, 'EBUSY'))
      throw new CairnError('CAIRN_BUSY', 'another accept or undo in this project has run for two minutes and still holds its lock', {
        hint: 'wait for it to finish, then run the command again',
        cause: error,
      });
    throw error;
  }
}
