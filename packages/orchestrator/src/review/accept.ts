import { randomBytes } from 'node:crypto';
import type { AcceptResult, Overlay } from '@cairn/agentfs';
import { type EntryState, stateOf } from '@cairn/agentfs';
import type { AcceptOptions, AcceptOutcome, ConflictInfo } from '@cairn/api';
import { CairnError, conflictOutcome, projectPath } from '@cairn/api';
import { withAgentOverlay } from '@cairn/workspace';
import { toAgentInfo } from '../agents/agent-info.js';
import type { ProjectCore } from '../agents/project-core.js';
import { withAgentOperation } from './agent-operation.js';
import { completeOperation } from './complete-operation.js';
import { type PendingWrite, PendingWrites } from './pending-writes.js';
import { importAffected, inStableTransaction } from './stable-transaction.js';

/**
 * Accepts an agent's proposal (all of it, or the given paths) into stable.db and the working tree together.
 *
 * 1. The working tree's current state of every affected path is imported into stable first, so an edit the
 *    watcher has not seen yet is merged, not overwritten.
 * 2. The same stable.db transaction applies the three-way accept and records, beside it, the disk writes it
 *    owes and the pre-images for undo (the intent). All or nothing unless `partial`: a conflict anywhere
 *    applies nothing, since a proposal is one change of the project.
 * 3. The disk is written path by path (temp file + rename), each only if the disk still holds what was
 *    merged against; a path the human saved meanwhile is left alone, re-imported, and reported.
 * 4. The overlay lets the applied paths go, and the intent is cleared.
 * A process killed anywhere in between is finished on the next open (`recoverPendingWrites`), or by the next
 * state change of any process. Accepts, undos, rejects and restores of every process queue on the project's
 * lock (`withAgentOperation`), so two accepts touching one file both merge, and an accept and a reject of one
 * agent never interleave: the one that comes second sees the state the first left.
 *
 * A path whose kind changed (file, folder, symlink) or a folder holding entries the proposal does not account
 * for is a conflict even with `force`: replacing it would delete what no pre-image keeps.
 */
export function acceptProposal(core: ProjectCore, agentId: string, options: AcceptOptions): AcceptOutcome {
  return acceptWhenReady(core, agentId, options, () => true)!;
}

/**
 * Accepts as `acceptProposal` does once `ready` (asked under the lock, after the agent's state is checked) says
 * the proposal may go in; undefined, with nothing changed, when it says not yet (its checks went stale meanwhile).
 */
export function acceptWhenReady(
  core: ProjectCore,
  agentId: string,
  options: AcceptOptions,
  ready: () => boolean,
): AcceptOutcome | undefined {
  return withAgentOperation(core, () => {
    requireReviewing(core, agentId);
    return ready() ? acceptLocked(core, agentId, options) : undefined;
  });
}

/** Refuses an agent that is not `reviewing`, naming the state it is in. */
export function requireReviewing(core: Pick<ProjectCore, 'store'>, agentId: string): void {
  const record = core.store.require(agentId);
  if (record.state !== 'reviewing') {
    throw new CairnError('CAIRN_INVALID_STATE', `agent ${agentId} is ${record.state}; only a reviewing agent can be accepted`, {
      hint:
        record.state === 'accepted'
          ? `undo it with \`cairn undo ${agentId}\``
          : record.state === 'rejected'
            ? `bring it back with \`cairn restore ${agentId}\` first`
            : `see it with \`cairn status ${agentId}\``,
    });
  }
}

function acceptLocked(
  core: Pick<ProjectCore, 'clock' | 'emit' | 'layout' | 'lifecycle' | 'stable' | 'store'>,
  agentId: string,
  options: AcceptOptions,
): AcceptOutcome {
  const paths = options.paths === undefined ? undefined : options.paths.map((p) => projectPath(p));
  const { root } = core.layout;
  const pending = new PendingWrites(core.stable);
  const opId = randomBytes(6).toString('hex');
  let result!: AcceptResult;
  const details = new Map<string, string>();
  const completed = withAgentOverlay(core.layout.overlayPath(agentId), core.stable, agentId, (overlay) => {
    const selected = pathsToImport(overlay, agentId, paths);
    const expected = new Map<string, EntryState>();
    const writes: PendingWrite[] = [];
    inStableTransaction(core.stable, () => {
      importAffected(core.stable, root, selected);
      for (const path of selected) expected.set(path, stateOf(core.stable.fs, '/' + path));
      result = overlay.accept({
        ...(paths === undefined ? {} : { paths }),
        force: options.force ?? false,
        atomic: options.partial !== true,
        settle: false,
      });
      for (const image of result.preImages) {
        const write: PendingWrite = { opId, agentId, kind: 'accept', path: image.path, expected: expected.get(image.path) ?? image.before };
        pending.add(write);
        writes.push(write);
      }
      if (result.preImages.length > 0) pending.recordAccept({ id: opId, agentId, createdAt: core.clock(), preImages: result.preImages });
    });
    for (const conflict of result.conflicts) {
      const detail = describeKindConflict(overlay, conflict.path, expected.get(conflict.path), conflict.reason);
      if (detail !== undefined) details.set(conflict.path, detail);
    }
    overlay.settle(result.applied.filter((a) => a.how === 'already').map((a) => a.path));
    // a file's bytes and mode are what stable.db now holds exactly (folders and links are read back)
    const files = result.preImages.filter((image) => image.after.kind === 'file');
    return completeOperation(core, opId, 'accept', agentId, writes, overlay, new Map(files.map((image) => [image.path, image.after])));
  });
  const moved = new Set(completed.yielded);
  const after = completed.agent ?? core.store.require(agentId);
  core.lifecycle.changed(after);
  const conflicts: ConflictInfo[] = [
    ...result.conflicts.map((c) => ({
      path: c.path,
      reason: c.reason,
      ...(details.has(c.path) ? { detail: details.get(c.path)! } : {}),
      hunks: c.hunks.map((h) => ({ ours: side(h.ours), base: side(h.base), theirs: side(h.theirs) })),
    })),
    ...[...moved].map((path) => {
      const failure = completed.failed.find((f) => f.path === path);
      return failure === undefined
        ? { path, reason: 'changed-on-disk', hunks: [] }
        : { path, reason: failure.reason, detail: failure.message, hunks: [] };
    }),
  ];
  const applied = result.applied.filter((a) => !moved.has(a.path)).map((a) => ({ path: a.path, how: a.how }));
  core.emit({
    type: 'agent.accepted',
    time: core.lifecycle.now(),
    agentId,
    applied: applied.map((a) => a.path),
    conflicts,
    state: after.state,
  });
  return conflictOutcome(conflicts, { applied, agent: toAgentInfo(after) });
}

/**
 * The paths to bring in from the working tree before the accept decides: every path the overlay touched for a
 * whole accept (no change is read for it, the accept lists them once more anyway), else the selected changes.
 */
function pathsToImport(overlay: Overlay, agentId: string, paths: readonly string[] | undefined): string[] {
  if (paths === undefined) return overlay.touchedPaths();
  const changes = overlay.changes().map((c) => c.path);
  const picked = new Set<string>();
  for (const wanted of paths) {
    const under = changes.filter((c) => wanted === '' || c === wanted || c.startsWith(wanted + '/'));
    if (under.length === 0)
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `agent ${agentId} has no change at ${wanted || '.'}`, {
        hint: `see its changes with \`cairn diff ${agentId}\``,
      });
    for (const c of under) picked.add(c);
  }
  return [...picked].sort();
}

const KIND_WORDS: Record<string, string> = { file: 'a file', dir: 'a folder', symlink: 'a symbolic link', absent: 'nothing' };

/** Words for a conflict `force` never overrides: what the path is now, and what the agent proposes. */
function describeKindConflict(overlay: Overlay, path: string, current: EntryState | undefined, reason: string): string | undefined {
  if (current === undefined || (reason !== 'type' && reason !== 'not-empty')) return undefined;
  const change = overlay.changes().find((c) => c.path === path);
  if (change === undefined) return undefined;
  const parts = path.split('/');
  for (let i = 1; i < parts.length; i++) {
    const above = parts.slice(0, i).join('/');
    const kind = stateOf(overlay.base.fs, '/' + above).kind;
    if (kind !== 'dir' && kind !== 'absent')
      return `${above}, a folder above it, is ${KIND_WORDS[kind]!} now; Cairn never replaces it or writes through it, forced or not`;
  }
  const now = KIND_WORDS[current.kind]!;
  const proposed = change.after.kind === 'absent' ? 'deletes it' : `proposes ${KIND_WORDS[change.after.kind]!}`;
  const was = change.before.kind === 'absent' ? 'was not there' : `was ${KIND_WORDS[change.before.kind]!}`;
  if (reason === 'not-empty')
    return `it is a folder holding files the agent did not see, and the agent ${proposed}; it is never forced, so nothing of yours is deleted`;
  return `it is ${now} now (it ${was} when the agent started), and the agent ${proposed}; a path that changed kind is never forced, so nothing of yours is deleted`;
}

/** A side of a conflict hunk, its lines without their line endings. */
function side(part: { start: number; lines: readonly string[] }): { start: number; lines: string[] } {
  return { start: part.start, lines: part.lines.map((line) => line.replace(/\r?\n$/, '')) };
}
