import { type ImportSummary, importTreeAsync } from '@cairn/agentfs';
import type { SyncSummary } from '@cairn/api';
import type { ProjectCore } from '../agents/project-core.js';
import { recoverPendingWrites } from '../review/complete-operation.js';

/** Options of `syncProject`. */
export interface SyncOptions {
  /** Called with each folder of the mirror just before it is listed (the watcher watches it there), with its inode when known. */
  onDirectory?: (rel: string, diskIno?: number) => void;
  /** Stops the import between two batches. */
  signal?: AbortSignal;
}

/**
 * Brings stable.db up to date with the working tree in one walk of it (a file whose stat the stat cache
 * vouches for is not read), after finishing any accept or undo a killed process left half done. Progress goes
 * out as `sync.progress` events, and the import lets the event loop run between its batches, so a surface can
 * draw them as they come. What cannot be imported (unreadable, a name that is not UTF-8) is left out and listed
 * in `skipped`.
 */
export async function syncProject(
  core: Pick<ProjectCore, 'clock' | 'emit' | 'layout' | 'lifecycle' | 'stable' | 'store'>,
  options: SyncOptions = {},
): Promise<SyncSummary> {
  recoverPendingWrites(core);
  const started = performance.now();
  const summary = await importTreeAsync(core.stable, core.layout.root, {
    onProgress: (progress) => core.emit({ type: 'sync.progress', time: new Date(core.clock()).toISOString(), ...progress }),
    ...(options.onDirectory === undefined ? {} : { onDirectory: options.onDirectory }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return toSyncSummary(summary, performance.now() - started);
}

/** The API's view of what an import did. */
export function toSyncSummary(summary: ImportSummary, ms: number): SyncSummary {
  return {
    files: summary.files,
    added: summary.added,
    updated: summary.updated,
    removed: summary.removed,
    unchanged: summary.unchanged,
    bytes: summary.bytes,
    ms: Math.round(ms),
    ...(summary.skipped.length === 0 ? {} : { skipped: summary.skipped }),
  };
}
