import { mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { watch } from 'chokidar';
import type { CairnApi } from '../api/cairn-api.js';

/** A watcher of the inbox folder. */
export interface InboxWatcher {
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * What the daemon runs: every change of a thread file in `.cairn/threads/inbox/` (a person saving a
 * decision, a reviewer writing one) processes the inbox after a short pause, so an editor's write-and-rename
 * is seen once. A pass that is running when more changes come is followed by one more pass.
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
  const watcher = watch(dir, { depth: 0, ignoreInitial: false, ignored: (path) => path !== dir && dirname(path) !== dir });
  const relevant = (path: string) => {
    const name = basename(path);
    if (name.endsWith('.md') && !name.startsWith('.')) schedule();
  };
  watcher.on('add', relevant);
  watcher.on('change', relevant);
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}
