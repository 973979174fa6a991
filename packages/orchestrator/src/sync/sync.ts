import { importTree } from '@cairn/agentfs';
import type { ProjectCore } from '../agents/project-core.js';
import { recoverPendingWrites } from '../review/complete-operation.js';
import type { SyncSummary } from '../api/types.js';

/**
 * Brings stable.db up to date with the working tree (an incremental import: files whose size and mtime
 * match are not read), after finishing any accept or undo a killed process left half done. What cannot be
 * imported (unreadable, a name that is not UTF-8) is left out and listed in `skipped`.
 */
export function syncProject(core: ProjectCore): SyncSummary {
  recoverPendingWrites(core);
  const started = performance.now();
  const summary = importTree(core.stable, core.layout.root, {
    onProgress: (progress) => core.emit({ type: 'sync.progress', time: new Date(core.clock()).toISOString(), ...progress }),
  });
  return {
    files: summary.files,
    added: summary.added,
    updated: summary.updated,
    removed: summary.removed,
    unchanged: summary.unchanged,
    bytes: summary.bytes,
    ms: Math.round(performance.now() - started),
    ...(summary.skipped.length === 0 ? {} : { skipped: summary.skipped }),
  };
}
