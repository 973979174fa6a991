import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Kills every process whose environment carries `marker` (`NAME=value`), or that works in the check's own
 * folder `under` (its current folder is there), again and again until none is left: where no pid namespace
 * holds a check, this is how its daemonized children and fork loops are found. A process that leaves its
 * process group keeps its environment, and one that also clears its environment (`setsid env -i …`) still works
 * in the check's copy of the project, unless it moves out of it too. Linux only (`/proc`); elsewhere the process
 * group is all there is. Returns how many were killed.
 */
export function killMarkedProcesses(marker: string, under?: string, rounds = 50): number {
  let killed = 0;
  const needle = Buffer.from(`${marker}\0`);
  for (let round = 0; round < rounds; round++) {
    const found = markedProcesses(needle, under === undefined ? undefined : `${under.replace(/\/+$/, '')}/`);
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL');
        killed++;
      } catch {
        // gone already
      }
    }
  }
  return killed;
}

function markedProcesses(needle: Buffer, under: string | undefined): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    if (carries(entry, needle) || (under !== undefined && worksUnder(entry, under))) out.push(pid);
  }
  return out;
}

function carries(pid: string, needle: Buffer): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(needle);
  } catch {
    return false; // exited, or not ours to read
  }
}

function worksUnder(pid: string, folder: string): boolean {
  try {
    return `${readlinkSync(`/proc/${pid}/cwd`)}/`.startsWith(folder);
  } catch {
    return false;
  }
}
