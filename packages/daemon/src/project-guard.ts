import { type Stats, statSync } from 'node:fs';
import type { ProjectLayout } from '@cairn/orchestrator';

/** Watches that what a daemon serves is still where it was. */
export interface ProjectGuard {
  close(): void;
}

/** How often the project's folder and databases are looked at. */
const LOOK_EVERY_MS = 2000;

/**
 * Calls `onGone` once when the project's folder, its `.agentfs/` folder, or the databases a daemon holds open
 * (stable.db, bin.db) are no longer the ones they were when the guard started: moved, renamed, deleted or
 * replaced. Looks every two seconds. A daemon whose folder moved would go on serving a path that leads nowhere
 * while the project, elsewhere, has none; one whose databases were deleted would go on writing into files no
 * one else can see.
 */
export function guardProject(layout: ProjectLayout, onGone: (why: string) => void): ProjectGuard {
  const watched: { path: string; what: string; first: Stats }[] = [
    { path: layout.root, what: `the project folder ${layout.root}` },
    { path: layout.agentfsDir, what: `the project's ${layout.agentfsDir} folder` },
    { path: layout.stablePath, what: `the project's ${layout.stablePath}` },
    { path: layout.binPath, what: `the project's ${layout.binPath}` },
  ].map((entry) => ({ ...entry, first: statSync(entry.path) }));
  const timer = setInterval(() => {
    for (const { path, what, first } of watched) {
      let now: Stats | undefined;
      try {
        now = statSync(path, { throwIfNoEntry: false });
      } catch {
        continue; // cannot be looked at just now (permissions): not known to be gone
      }
      if (now !== undefined && now.ino === first.ino && now.dev === first.dev) continue;
      clearInterval(timer);
      onGone(now === undefined ? `${what} is gone (moved or deleted)` : `${what} was replaced by another`);
      return;
    }
  }, LOOK_EVERY_MS);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
