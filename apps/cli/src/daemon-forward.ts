import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CairnEvent, type ProjectLayout, socketAnswers } from '@cairn/daemon/client';

/** The events of an agent a daemon's listeners (Neovim, `cairn events`) must hear of: where it stands, and its checks. */
const FORWARDED = new Set([
  'agent.queued',
  'agent.started',
  'agent.submitted',
  'agent.failed',
  'agent.rejected',
  'check.started',
  'check.finished',
]);

/**
 * When a daemon runs for the project, tells it the events of an agent this process runs (an agent CLI runs in
 * the terminal that spawned it), as `event-…` file signals, so its listeners see the proposal as they see any
 * other. Returns the function that takes each event of this process; it does nothing without a daemon.
 */
export async function forwardToDaemon(layout: ProjectLayout): Promise<(event: CairnEvent, agentId: string) => void> {
  if (!(await socketAnswers(layout.socketPath, 500))) return () => undefined;
  return signalWriter(layout);
}

/**
 * As `forwardToDaemon`, for a process that outlives daemons (`cairn mcp`): each event is written while a daemon's
 * socket is there, so a daemon started, stopped or started again under it hears what happens from then on.
 */
export function forwardWhileDaemonRuns(layout: ProjectLayout): (event: CairnEvent, agentId: string) => void {
  const write = signalWriter(layout);
  return (event, agentId) => {
    if (existsSync(layout.socketPath)) write(event, agentId);
  };
}

/** Writes each forwarded event of `agentId` as an `event-…` file signal (whole, by a rename). */
function signalWriter(layout: ProjectLayout): (event: CairnEvent, agentId: string) => void {
  let seq = 0;
  return (event, agentId) => {
    if (!FORWARDED.has(event.type) || !('agentId' in event) || event.agentId !== agentId) return;
    try {
      mkdirSync(layout.signalsDir, { recursive: true });
      const name = `event-${Date.now()}-${String(seq++).padStart(4, '0')}-${randomUUID().slice(0, 8)}`;
      const temp = join(layout.signalsDir, `.${name}.tmp`);
      writeFileSync(temp, JSON.stringify(event));
      renameSync(temp, join(layout.signalsDir, name));
    } catch {
      // the daemon's listeners miss this event; the agent's record is the truth and they read it when asked
    }
  };
}
