import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { agentOfJobId } from './remote-job.js';

/** An upload kept by the endpoint, `<job>.<attempt>.db` (or `.json`, its claims). */
const UPLOAD = /^(.+)\.\d+\.(db|json)$/;

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
    const job = UPLOAD.exec(name)?.[1];
    const agent = job === undefined ? undefined : agentOfJobId(job);
    if (agent === undefined || stillRunning(agent)) continue;
    rmSync(join(uploadsDir, name), { force: true });
    dropped++;
  }
  return dropped;
}
