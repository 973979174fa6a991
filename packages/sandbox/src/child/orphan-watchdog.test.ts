import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const WATCHDOG = pathToFileURL(join(import.meta.dirname, '../../dist/child/orphan-watchdog.js')).href;

/** True while `pid` runs; a zombie (killed, not yet reaped by an init that may never reap) counts as gone. */
function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

describe('orphan watchdog', () => {
  it('kills a child whose main thread is stuck once its parent is killed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-orphan-'));
    try {
      // The child: a watchdog, then a main thread that never yields again.
      writeFileSync(
        join(dir, 'stuck-child.mjs'),
        `import { watchForOrphaning } from ${JSON.stringify(WATCHDOG)};\nwatchForOrphaning();\nprocess.send('stuck');\nfor (;;) {}\n`,
      );
      // The parent: forks the child, reports its pid, and waits to be killed.
      writeFileSync(
        join(dir, 'parent.mjs'),
        `import { fork } from 'node:child_process';\nconst child = fork(${JSON.stringify(join(dir, 'stuck-child.mjs'))});\nchild.on('message', () => process.send(child.pid));\nsetInterval(() => {}, 1000);\n`,
      );
      const parent = fork(join(dir, 'parent.mjs'));
      const childPid = await new Promise<number>((resolve) => parent.once('message', (pid) => resolve(Number(pid))));
      expect(processAlive(childPid)).toBe(true);
      parent.kill('SIGKILL');
      const deadline = Date.now() + 60_000;
      while (processAlive(childPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(processAlive(childPid)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
