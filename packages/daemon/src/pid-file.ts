import { readFileSync } from 'node:fs';
import { writeAtomically } from '@cairn/api';

/** The pid file's content: who serves the project, where. */
export interface DaemonPidFile {
  pid: number;
  socket: string;
  root: string;
  startedAt: string;
}

/** The pid file of a project's daemon, if one was written whole; anything else in its place reads as none. */
export function readPidFile(path: string): DaemonPidFile | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, socket, root, startedAt } = value as Record<string, unknown>;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (typeof socket !== 'string' || typeof root !== 'string' || typeof startedAt !== 'string') return undefined;
  return { pid, socket, root, startedAt };
}

/** Writes the pid file whole or not at all, so a reader never sees half of it. */
export function writePidFile(path: string, pidFile: DaemonPidFile): void {
  writeAtomically(path, JSON.stringify(pidFile) + '\n');
}
