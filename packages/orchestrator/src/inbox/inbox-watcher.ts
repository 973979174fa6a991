import { mkdirSync, watch } from 'node:fs';
import type { CairnApi } from '@cairn/api';

/** A watcher of the inbox folder. */
export interface InboxWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * What the daemon runs: every change of a thread file in `.cairn/threads/inbox/` (a person saving a
 * decision, a reviewer writing one) processes that thread after a short pause, so an editor's write-and-rename
 * is seen once. A pass that is running when more changes come is followed by one more pass, and one pass over
 * every thread runs at the start for what was decided while no daemon watched. The folder is watched as one
 * folder, and a pass reads only the threads that changed (the name of what changed comes with the event; where
 * the system gives no name, the pass reads them all), so a new thread costs the same with 5 or 500 waiting.
 */
export function watchInbox(api: CairnApi, dir: string, report: (error: Error) => void, debounceMs = 150): InboxWatcher {
  mkdirSync(dir, { recursive: true });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let closed = false;
  // the threads changed since the last pass began; `all` when one change came without its name
  let changed: Set<string> | 'all' = 'all';
  const pass = (threads: Set<string> | 'all') =>
    api.processInbox(threads === 'all' ? undefined : { threads: [...threads] }).catch((error: Error) => report(error));
  const schedule = (name: string | null) => {
    if (closed) return;
    if (name === null) changed = 'all';
    else if (changed !== 'all') changed.add(name);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const threads = changed;
      changed = new Set();
      running = running.then(() => (closed ? undefined : pass(threads)));
    }, debounceMs);
  };
  const relevant = (name: string | null) => name === null || (name.endsWith('.md') && !name.startsWith('.') && !name.includes('/'));
  const watcher = watch(dir, { persistent: true }, (_event, name) => {
    if (relevant(name)) schedule(name);
  });
  watcher.on('error', (error) => report(error));
  schedule(null);
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
