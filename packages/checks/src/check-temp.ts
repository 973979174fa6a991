import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '@cairn/agentfs/process-alive';

const PREFIX = 'cairn-check-';

/**
 * A temporary folder for one check, named for the process that runs it (`cairn-check-<pid>-…`). The folders
 * of processes that died mid-check (a Cairn killed with SIGKILL never removes its own) are removed first.
 */
export function checkTempFolder(): string {
  removeOrphans();
  return mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

function removeOrphans(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^cairn-check-(\d+)-/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {
      // another user's, or still mounted: left for its owner
    }
  }
}
