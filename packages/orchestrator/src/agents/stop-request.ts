import type { AgentStore } from './agent-store.js';

/** How often a running agent looks for a stop another process asked for. */
const WATCH_MS = 200;
/** How long a reject waits for the process running an agent to stop it. */
export const STOP_WAIT_MS = 15_000;

/**
 * Watches the record of an agent this process runs for a stop another process asked for (a `cairn reject`
 * when no daemon runs the agents), and calls `stop` once it is asked. The returned `end`, called once the run
 * is over and its overlay closed, ends the watch and answers the request (the asker may then move the overlay).
 */
export function watchStopRequest(store: AgentStore, id: string, stop: (reason: string) => void): () => void {
  let asked = false;
  const timer = setInterval(() => {
    const reason = store.get(id)?.stopRequested;
    if (reason === undefined) return;
    asked = true;
    clearInterval(timer);
    stop(reason);
  }, WATCH_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    try {
      if (asked || store.get(id)?.stopRequested !== undefined) store.update(id, { stopRequested: undefined });
    } catch {
      // the record is gone (collected): nothing waits for the answer
    }
  };
}

/**
 * Asks the process that runs an agent to stop it (its model request aborted, no further round started) and
 * waits until the agent has left `running` and that process has let go of its overlay; false when it did not
 * within `timeoutMs` (the process is gone).
 */
export async function requestStop(store: AgentStore, id: string, reason: string, timeoutMs = STOP_WAIT_MS): Promise<boolean> {
  try {
    store.update(id, { stopRequested: reason }, ['running']);
  } catch {
    return store.get(id)?.state !== 'running';
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const record = store.get(id);
    if (record?.state !== 'running' && record?.stopRequested === undefined) return true;
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS / 2));
  }
  // nobody answered: a later run of the agent must not take the request for its own
  store.update(id, { stopRequested: undefined });
  return false;
}
