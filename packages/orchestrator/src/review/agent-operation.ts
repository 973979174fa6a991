import { withProjectLock } from '@cairn/workspace';
import type { ProjectCore } from '../agents/project-core.js';
import { recoverPendingWrites } from './complete-operation.js';

/**
 * Runs one state change of an agent (accept, undo, reject, restore) alone: under the project's lock, which every
 * process takes for these (a daemon, CLIs with or without one), so one agent moves through one change at a
 * time and each reads the state the one before left. An accept or undo a killed process left half done is
 * finished first (its holder is dead, since no live one holds the lock), so the change after it sees its
 * outcome: an accept that wrote is `accepted` before a reject is even considered.
 */
export function withAgentOperation<T>(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable' | 'store'>, fn: () => T): T {
  return withProjectLock(core.layout, () => {
    recoverPendingWrites(core);
    return fn();
  });
}
