import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomically } from './atomic-write.js';
import type { AgentInfo } from '../api/types.js';

/** `state/agents.json`: every agent and the queue, rewritten atomically (within 50 ms of a transition), for tools that read files. */
export function writeStateSnapshot(
  stateDir: string,
  root: string,
  agents: readonly AgentInfo[],
  queue: readonly string[],
  time: number,
): void {
  mkdirSync(stateDir, { recursive: true });
  const snapshot = { project: root, updatedAt: new Date(time).toISOString(), queue, agents };
  writeAtomically(join(stateDir, 'agents.json'), JSON.stringify(snapshot, null, 2) + '\n');
}
