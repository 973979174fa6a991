import { readFileSync } from 'node:fs';

/**
 * True when a process with this pid is running (one of another user's counts). A zombie — killed but not
 * yet reaped, which happens to a daemon whose parent has gone — is not running.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
