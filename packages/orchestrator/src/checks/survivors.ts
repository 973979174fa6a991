import { readdirSync, readFileSync } from 'node:fs';

/**
 * Kills every process whose environment carries `marker` (`NAME=value`), again and again until none is
 * left: where no pid namespace holds a check, this is how its daemonized children and fork loops are
 * found (a process that leaves its process group keeps its environment). Linux only (`/proc`); elsewhere the
 * process group is all there is. Returns how many were killed.
 */
export function killMarkedProcesses(marker: string, rounds = 50): number {
  let killed = 0;
  const needle = Buffer.from(`${marker}\0`);
  for (let round = 0; round < rounds; round++) {
    const found = markedProcesses(needle);
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

function markedProcesses(needle: Buffer): number[] {
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
    try {
      const environ = readFileSync(`/proc/${entry}/environ`);
      if (environ.includes(needle)) out.push(pid);
    } catch {
      // exited, or not ours to read
    }
  }
  return out;
}
