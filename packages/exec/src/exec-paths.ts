import { join } from 'node:path';

/** The folder of an agent CLI's runs under the project's Cairn home (`workspaces/<id>.exec/`). */
export function execFolder(workspacesDir: string, agentId: string): string {
  return join(workspacesDir, `${agentId}.exec`);
}

/** One run's own folder: the upper layer, the overlay's work folder, the new root. */
export function execStateDir(workspacesDir: string, agentId: string, run: number): string {
  return join(execFolder(workspacesDir, agentId), `run-${run}`);
}

/** Where a headless run's output goes (every run's, appended), for `cairn log`. */
export function execOutputFile(workspacesDir: string, agentId: string): string {
  return join(execFolder(workspacesDir, agentId), 'output.log');
}
