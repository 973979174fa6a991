import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** An upload kept by the endpoint, `<agent>-<enqueue>.<attempt>.db` (or `.json`, its claims). */
const UPLOAD = /^([0-9a-f]{4,16})-\d+\.\d+\.(db|json)$/;

/**
 * Removes the uploads of agents that no longer run on a worker: an attempt whose job went to another worker
 * after it had uploaded, or one a reject or a stop left unread. What a result was verified from has been moved
 * by then (into the agent's database, or into the evidence). Uploads still arriving (`.part`) are left alone.
 * Returns how many files went.
 */
export function dropDeadUploads(uploadsDir: string, stillRunning: (agentId: string) => boolean): number {
  let names: string[];
  try {
    names = readdirSync(uploadsDir);
  } catch {
    return 0;
  }
  let dropped = 0;
  for (const name of names) {
    const agent = UPLOAD.exec(name)?.[1];
    if (agent === undefined || stillRunning(agent)) continue;
    rmSync(join(uploadsDir, name), { force: true });
    dropped++;
  }
  return dropped;
}
