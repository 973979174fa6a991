import type { Change } from '@cairn/agentfs';
import type { ChangeInfo } from '@cairn/api';

/** A change of an overlay as every surface shows it: its path, what happened to it, and its kind. */
export function changeInfoOf(change: Change): ChangeInfo {
  return { path: change.path, status: change.status, kind: change.kind };
}
