import { join } from 'node:path';
import { projectLayout } from '@cairn/orchestrator';
import { remoteDirs } from './coordinator.js';
import { WorkerRoster } from './worker-roster.js';

/** The roster of a project's coordinator: enrolled keys and untrusted marks. */
export function workerRoster(root: string): WorkerRoster {
  const layout = projectLayout(root);
  return new WorkerRoster(layout.configPath, join(remoteDirs({ layout }).root, 'untrusted.json'));
}
