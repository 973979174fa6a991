import { randomBytes } from 'node:crypto';
import type { PreImage } from '@cairn/agentfs';
import { type EntryState, stateOf, undoAccept } from '@cairn/agentfs';
import type { UndoOutcome } from '@cairn/api';
import { CairnError, conflictOutcome } from '@cairn/api';
import { toAgentInfo } from '../agents/agent-info.js';
import type { ProjectCore } from '../agents/project-core.js';
import { withAgentOperation } from './agent-operation.js';
import { completeOperation } from './complete-operation.js';
import { type PendingWrite, PendingWrites } from './pending-writes.js';
import { importAffected, inStableTransaction } from './stable-transaction.js';

const UNDO_REASONS = { changed: 'changed-since-accept', kind: 'kind-changed-since-accept', 'not-empty': 'not-empty' } as const;

/**
 * Undoes an agent's accepts (newest first) in stable.db and the working tree, the same crash-safe way as an
 * accept: the human's current files are imported first; a file the human changed since the accept is
 * reported and left as it is (unless forced). The undone changes go back into the agent's overlay, so the
 * proposal is `reviewing` again and can be accepted or rejected anew.
 *
 * Nothing of the human's is lost, even forced: a path whose kind changed since the accept, or a folder that
 * gained entries, is never forced; a file the human edited since and a forced undo overwrites goes back into
 * the proposal as the human left it, so accepting again brings it back byte for byte.
 */
export function undoAccepts(core: ProjectCore, agentId: string, options: { force?: boolean }): UndoOutcome {
  return withAgentOperation(core, () => undoLocked(core, agentId, options));
}

function undoLocked(
  core: Pick<ProjectCore, 'clock' | 'emit' | 'layout' | 'lifecycle' | 'stable' | 'store'>,
  agentId: string,
  options: { force?: boolean },
): UndoOutcome {
  const record = core.store.require(agentId);
  const pending = new PendingWrites(core.stable);
  const accepts = pending.openAccepts(agentId);
  if (accepts.length === 0 || (record.state !== 'accepted' && record.state !== 'reviewing')) {
    throw new CairnError('CAIRN_INVALID_STATE', `agent ${agentId} is ${record.state} and has no accept to undo`, {
      hint: `see it with \`cairn status ${agentId}\``,
    });
  }
  const { root } = core.layout;
  const images: PreImage[] = [...accepts].reverse().flatMap((a) => a.preImages);
  const paths = [...new Set(images.map((i) => i.path))];
  const opId = randomBytes(6).toString('hex');
  let restored: string[] = [];
  let conflicts: { path: string; reason: string }[] = [];
  const writes: PendingWrite[] = [];
  inStableTransaction(core.stable, () => {
    importAffected(core.stable, root, paths);
    const expected = new Map<string, EntryState>(paths.map((path) => [path, stateOf(core.stable.fs, '/' + path)]));
    const undone = undoAccept(core.stable.fs, images, { force: options.force ?? false });
    restored = undone.restored;
    conflicts = undone.conflicts.map((c) => ({ path: c.path, reason: UNDO_REASONS[c.reason] }));
    const latest = new Map(images.map((image) => [image.path, image]));
    for (const over of undone.forced) latest.set(over.path, { ...latest.get(over.path)!, after: over.found });
    for (const path of restored) {
      const write: PendingWrite = { opId, agentId, kind: 'undo', path, expected: expected.get(path)!, image: latest.get(path)! };
      pending.add(write);
      writes.push(write);
    }
    pending.markUndone(
      accepts.map((a) => a.id),
      core.clock(),
    );
    const left = images.filter((image) => undone.conflicts.some((c) => c.path === image.path));
    if (left.length > 0) pending.recordAccept({ id: `${opId}-left`, agentId, createdAt: core.clock(), preImages: left });
  });
  const completed = completeOperation(core, opId, 'undo', agentId, writes);
  for (const path of completed.yielded)
    conflicts.push({ path, reason: completed.failed.find((f) => f.path === path)?.reason ?? 'changed-on-disk' });
  const after = completed.agent ?? core.store.require(agentId);
  const restoredPaths = completed.written;
  // an undo that left every path as the human has it changed nothing an observer could see
  if (after.state !== 'accepted' || restoredPaths.length > 0) {
    core.lifecycle.changed(after);
    core.emit({ type: 'agent.undone', time: core.lifecycle.now(), agentId, restored: restoredPaths });
  }
  return conflictOutcome(conflicts, { restored: restoredPaths, agent: toAgentInfo(after) });
}
