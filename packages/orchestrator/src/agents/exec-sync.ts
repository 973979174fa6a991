import { randomUUID } from 'node:crypto';
import { CairnError } from '@cairn/api';
import type { AgentStore } from './agent-store.js';

/** How often a running exec agent looks for a sync another process asked for. */
const WATCH_MS = 200;
/** How long `cairn run --sync` waits for the process running the agent to answer. */
const SYNC_WAIT_MS = 120_000;

/**
 * Watches the record of an exec agent this process runs for `cairn run ID --sync` from another process, and
 * answers each by running `sync` (its answer, a line, written back for the asker). The returned function
 * ends the watch, once any sync under way has finished.
 */
export function watchSyncRequest(store: AgentStore, id: string, sync: () => Promise<string>): () => Promise<void> {
  let busy: Promise<void> = Promise.resolve();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    const asked = store.get(id)?.syncRequest;
    if (asked === undefined || asked.answer !== undefined) return;
    running = true;
    busy = sync()
      .catch((error: unknown) => `the sync failed: ${(error as Error).message}`)
      .then((answer) => {
        try {
          store.update(id, { syncRequest: { ...asked, answer } });
        } catch {
          // the record moved on: the asker sees it
        }
      })
      .finally(() => {
        running = false;
      });
  }, WATCH_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await busy;
  };
}

/**
 * Asks the process running an exec agent to take what its command wrote so far into its overlay now, and
 * waits for its answer (a line: how many changes it took).
 */
export async function requestSync(store: AgentStore, id: string, timeoutMs = SYNC_WAIT_MS): Promise<string> {
  const record = store.require(id);
  if (record.exec === undefined) throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} runs no command: --sync is for agent CLIs`);
  const token = randomUUID();
  try {
    store.update(id, { syncRequest: { token } }, ['running']);
  } catch {
    throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} is ${store.require(id).state}: its command does not run now`, {
      hint: `cairn diff ${id} shows what it proposed`,
    });
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const now = store.get(id);
    if (now?.syncRequest?.token === token && now.syncRequest.answer !== undefined) {
      store.update(id, { syncRequest: undefined });
      return now.syncRequest.answer;
    }
    if (now?.state !== 'running') return `the command ended meanwhile: its writes were taken as it ended (${now?.state ?? 'gone'})`;
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS / 2));
  }
  store.update(id, { syncRequest: undefined });
  throw new CairnError('CAIRN_BUSY', `the process running agent ${id} did not answer within ${timeoutMs / 1000} s`);
}
