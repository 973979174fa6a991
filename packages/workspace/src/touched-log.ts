import type { AgentFS, EntryState } from '@cairn/agentfs';
import type { BlobStore } from './blob-store.js';

/** What a path held before a run first changed it: enough to rebuild that run's starting point. */
export interface TouchedEntry {
  path: string;
  kind: EntryState['kind'];
  mode: number;
  contentRef?: string;
}

/** The table of the paths each run changed. */
export const TOUCHED_DDL = `CREATE TABLE IF NOT EXISTS cairn_run_touched (run INTEGER NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
      mode INTEGER NOT NULL, content_ref TEXT, PRIMARY KEY (run, path))`;

/**
 * The paths each run changed, with what they held just before (`cairn_run_touched`). A failed attempt is
 * rolled back from here, and a replay rebuilds each run's starting point from it.
 */
export class TouchedLog {
  private readonly insert;
  private readonly select;

  constructor(
    store: AgentFS,
    private readonly blobs: BlobStore,
  ) {
    store.db.exec(TOUCHED_DDL);
    this.insert = store.db.prepare('INSERT OR IGNORE INTO cairn_run_touched (run, path, kind, mode, content_ref) VALUES (?, ?, ?, ?, ?)');
    this.select = store.db.prepare('SELECT path, kind, mode, content_ref FROM cairn_run_touched WHERE run = ? ORDER BY path');
  }

  /** Keeps the state of `path` before its first change in `run` (later calls for the same path are ignored). */
  record(run: number, path: string, state: EntryState): void {
    const contentRef = state.kind === 'file' || state.kind === 'symlink' ? this.blobs.put(state.content, state.hash) : null;
    this.insert.run(run, path, state.kind, state.kind === 'absent' ? 0 : state.mode, contentRef);
  }

  entries(run: number): TouchedEntry[] {
    return (this.select.all(run) as { path: string; kind: TouchedEntry['kind']; mode: number; content_ref: string | null }[]).map((row) => {
      const entry: TouchedEntry = { path: row.path, kind: row.kind, mode: row.mode };
      if (row.content_ref !== null) entry.contentRef = row.content_ref;
      return entry;
    });
  }

  /** The state kept for an entry, with its bytes. */
  stateOf(entry: TouchedEntry): EntryState {
    if (entry.kind === 'absent') return { kind: 'absent' };
    if (entry.kind === 'dir') return { kind: 'dir', mode: entry.mode };
    const content = this.blobs.get(entry.contentRef!);
    return { kind: entry.kind, mode: entry.mode, hash: entry.contentRef!.slice('sha256:'.length), content };
  }
}
