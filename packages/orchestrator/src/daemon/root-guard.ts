import { statSync } from 'node:fs';

/** Watches that a daemon's project folder is still where it was. */
export interface RootGuard {
  close(): void;
}

/** How often the project folder is looked at. */
const LOOK_EVERY_MS = 2000;

/**
 * Calls `onGone` once when the project folder at `root` is no longer the folder it was when the guard started
 * (moved, renamed or deleted: nothing is there, or another folder is), looking every two seconds. A daemon
 * serving a folder that moved would go on serving a path that leads nowhere while the project, elsewhere, has
 * none.
 */
export function guardRoot(root: string, onGone: (why: string) => void): RootGuard {
  const first = statSync(root);
  const timer = setInterval(() => {
    let now: ReturnType<typeof statSync>;
    try {
      now = statSync(root, { throwIfNoEntry: false });
    } catch {
      return; // cannot be looked at just now (permissions): not known to be gone
    }
    if (now?.isDirectory() === true && now.ino === first.ino && now.dev === first.dev) return;
    clearInterval(timer);
    onGone(now === undefined ? `the project folder ${root} is gone (moved or deleted)` : `${root} is not the project folder it served`);
  }, LOOK_EVERY_MS);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
