import { mkdirSync, watch } from 'node:fs';
import type { CairnApi } from '../api/cairn-api.js';

/** A watcher of the inbox folder. */
export interface InboxWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * What the daemon runs: every change of a thread file in `.cairn/threads/inbox/` (a person saving a
 * decision, a reviewer writing one) processes the inbox after a short pause, so an editor's write-and-rename
 * is seen once. A pass that is running when more changes come is followed by one more pass, and one pass runs
 * at the start for what was decided while no daemon watched. The folder is watched as one folder (the name
 * of what changed comes with the event), so a new thread costs the same with 5 or 500 waiting.
 */
export function watchInbox(api: CairnApi, dir: string, report: (error: Error) => void, debounceMs = 150): InboxWatcher {
  mkdirSync(dir, { recursive: true });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let closed = false;
  const schedule = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() => (closed ? undefined : api.processInbox().catch((error: Error) => report(error))));
    }, debounceMs);
  };
  const relevant = (name: string | null) => name === null || (name.endsWith('.md') && !name.startsWith('.'));
  const watcher = watch(dir, { persistent: true }, (_event, name) => {
    if (relevant(name)) schedule();
  });
  watcher.on('error', (error) => report(error));
  schedule();
  const ready = Promise.resolve();
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      watcher.close();
      await running;
    },
  };
}
