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

/** Starts the watchdog thread; it never keeps the child alive by itself. */
export function watchForOrphaning(): void {
  const worker = new Worker(WATCHDOG, { eval: true, workerData: process.ppid, resourceLimits: { maxOldGenerationSizeMb: 8 } });
  worker.unref();
}
