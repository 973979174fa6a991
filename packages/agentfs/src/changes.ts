import { type EntryState, sameState, stateOf } from './entry-state.js';
import type { MergeBaseLog } from './merge-base.js';
import type { EntryKind } from './mode.js';
import type { OverlayFileSystem } from './overlay-fs.js';
import { toRelative } from './path.js';

/** How an overlay changed a path relative to its merge base. */
export type ChangeStatus = 'added' | 'modified' | 'deleted';

/** One changed path: `before` is the merge base, `after` the overlay's state now. */
export interface Change {
  /** Project-relative path (`src/a.ts`). */
  path: string;
  status: ChangeStatus;
  /** The kind after the change (before it, for deletions). */
  kind: EntryKind;
  before: EntryState;
  after: EntryState;
}

/** Every path whose overlay state differs from its merge base, in path order. */
export function listChanges(fs: OverlayFileSystem, mergeBase: MergeBaseLog): Change[] {
  const changes: Change[] = [];
  for (const record of mergeBase.all()) {
    const after = stateOf(fs, record.path);
    const before = record.state;
    if (sameState(before, after)) continue;
    const status: ChangeStatus = before.kind === 'absent' ? 'added' : after.kind === 'absent' ? 'deleted' : 'modified';
    const kind = (after.kind === 'absent' ? before.kind : after.kind) as EntryKind;
    changes.push({ path: toRelative(record.path), status, kind, before, after });
  }
  return changes;
}
