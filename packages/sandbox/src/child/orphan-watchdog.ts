import { Worker } from 'node:worker_threads';

// Runs on its own thread, so it works even while the child's main thread is stuck (a runaway regular
// expression over a hostile result, say): when the parent is gone, the child is killed rather than left
// spinning as an orphan. Linux tells the live parent in /proc; elsewhere the parent is probed with signal 0.
const WATCHDOG = `
const { readFileSync } = require('node:fs');
const { workerData: parent } = require('node:worker_threads');
function parentGone() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== parent;
  } catch {
    try { process.kill(parent, 0); return false; } catch { return true; }
  }
}
setInterval(() => { if (parentGone()) process.kill(process.pid, 'SIGKILL'); }, 500);
`;

/** The environment variable through which a parent tells its sandbox child its pid. */
export const PARENT_PID_VARIABLE = 'CAIRN_SANDBOX_PARENT';

/**
 * Starts the watchdog thread; it never keeps the child alive by itself. The parent is the pid the parent
 * passed (so a parent that died before this ran is noticed too), else the parent of the moment.
 */
export function watchForOrphaning(): void {
  const passed = Number(process.env[PARENT_PID_VARIABLE]);
  const parent = Number.isSafeInteger(passed) && passed > 0 ? passed : process.ppid;
  if (parent !== process.ppid) process.kill(process.pid, 'SIGKILL');
  const worker = new Worker(WATCHDOG, { eval: true, workerData: parent, resourceLimits: { maxOldGenerationSizeMb: 8 } });
  worker.unref();
}
