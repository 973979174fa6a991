import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInfo } from '@cairn/api';
import { writeAtomically } from '@cairn/api';

/** One agent as `state/agents.json` lists it: its JSON, indented to its place in the file. */
export function snapshotEntry(agent: AgentInfo): string {
  return JSON.stringify(agent, null, 2).replaceAll('\n', '\n    ');
}

/**
 * `state/agents.json`: every agent (as `snapshotEntry` gave each, in order) and the queue, rewritten atomically
 * (within 50 ms of a transition), for tools that read files. The same text as `JSON.stringify(…, null, 2)` of
 * the whole, built from entries kept between rewrites.
 */
export function writeStateSnapshot(
  stateDir: string,
  root: string,
  entries: readonly string[],
  queue: readonly string[],
  time: number,
): void {
  mkdirSync(stateDir, { recursive: true });
  const head = JSON.stringify({ project: root, updatedAt: new Date(time).toISOString(), queue }, null, 2).slice(0, -2);
  const agents = entries.length === 0 ? '[]' : `[\n    ${entries.join(',\n    ')}\n  ]`;
  writeAtomically(join(stateDir, 'agents.json'), `${head},\n  "agents": ${agents}\n}\n`);
}
