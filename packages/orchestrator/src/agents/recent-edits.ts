import type { CairnEvent } from '@cairn/api';

/** How many edited paths are remembered. */
const KEPT = 50;

/** The paths the person edited lately, newest first, as the watcher reports them (`sync.changed`). */
export class RecentEdits {
  private paths: string[] = [];

  /** An event listener that remembers the paths of every `sync.changed` event. */
  readonly listener = (event: CairnEvent): void => {
    if (event.type !== 'sync.changed') return;
    const fresh = [...event.paths].reverse();
    this.paths = [...fresh, ...this.paths.filter((p) => !fresh.includes(p))].slice(0, KEPT);
  };

  /** The remembered paths, newest first. */
  list(): readonly string[] {
    return this.paths;
  }
}
