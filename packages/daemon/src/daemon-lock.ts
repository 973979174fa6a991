import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tryHoldExclusiveLock } from '@cairn/agentfs/exclusive-lock';
import type { ProjectLayout } from '@cairn/orchestrator';

/**
 * True while a daemon holds the project, starting or serving: its lock is taken. (A pid file alone can be
 * left by a daemon that was killed, and its pid reused.)
 */
export function daemonHoldsProject(layout: Pick<ProjectLayout, 'home'>): boolean {
  if (!existsSync(layout.home)) return false;
  const lock = tryHoldExclusiveLock(join(layout.home, 'daemon.lock'));
  if (lock === undefined) return true;
  lock.release();
  return false;
}
