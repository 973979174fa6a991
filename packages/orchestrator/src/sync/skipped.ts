import { existsSync } from 'node:fs';
import { AgentFS } from '@cairn/agentfs';
import { skippedEntries, type SkippedEntry } from '@cairn/agentfs/internal';
import { projectLayout } from '../workspace/layout.js';

/**
 * The entries of the working tree the last import left out (unreadable, or a name that is not UTF-8), as
 * stable.db records them; empty for a project never imported. Safe while a daemon runs.
 */
export function readSkippedEntries(root: string): SkippedEntry[] {
  const { stablePath } = projectLayout(root);
  if (!existsSync(stablePath)) return [];
  const stable = AgentFS.open(stablePath, { durability: 'full' });
  try {
    return skippedEntries(stable);
  } finally {
    stable.close();
  }
}
