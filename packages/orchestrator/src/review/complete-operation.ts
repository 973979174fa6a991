import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Overlay } from '@cairn/agentfs';
import {
  describeFsError,
  type EntryState,
  IgnoreRules,
  importPath,
  pruneIgnored,
  type StateSummary,
  skippedEntries,
  writeBack,
} from '@cairn/agentfs';
import { processAlive } from '@cairn/agentfs/process-alive';
import type { ChangeInfo } from '@cairn/api';
import { changeInfoOf, fsyncsWorkingTree, withAgentOverlay, withProjectLock } from '@cairn/workspace';
import type { AgentRecord } from '../agents/agent-store.js';
import type { AgentFiles, ProjectCore } from '../agents/project-core.js';
import { type PendingKind, type PendingWrite, PendingWrites } from './pending-writes.js';
import { reproposeInOverlay } from './repropose.js';

/** What finishing an operation did on disk. */
export interface CompletedOperation {
  /** Paths the working tree now holds as stable.db does. */
  written: string[];
  /** Folders the operation deleted that stay on disk, and in stable.db, for the ignored files in them. */
  kept: string[];
  /** Paths the human changed on disk meanwhile: left as the human has them (and imported into stable). */
  yielded: string[];
  /**
   * Paths among `yielded` that were not written for another reason than a human edit: the system refused the
   * write (`write-failed`: permissions, a full disk), or Cairn cannot read what is there (`unreadable`).
   */
  failed: { path: string; reason: 'write-failed' | 'unreadable'; message: string }[];
  agent: AgentRecord | undefined;
}

/**
 * Finishes an accept or an undo whose stable.db half has committed: brings the working tree to stable's
 * state path by path (only where the disk still holds what the operation expected), lets the overlay go
 * of accepted paths (or puts undone ones back into it), updates the agent's record, then clears the
 * intent. Every step can run again after a crash with the same result, which is what recovery does. The
 * caller that has the agent's overlay open passes it (`openOverlay`); otherwise it is opened here. A caller
 * that has just written stable.db passes what it wrote there (`stored`), so it is not read back.
 */
export function completeOperation(
  core: AgentFiles,
  opId: string,
  kind: PendingKind,
  agentId: string,
  writes: readonly PendingWrite[],
  openOverlay?: Overlay,
  stored?: ReadonlyMap<string, EntryState>,
): CompletedOperation {
  const { root } = core.layout;
  const pending = new PendingWrites(core.stable);
  const expected = new Map<string, StateSummary>(writes.map((write) => [write.path, write.expected]));
  const rules = IgnoreRules.forTree(root);
  // a path the disk already holds as stable.db does (written before a crash, or by the human) counts as written
  const result =
    writes.length === 0
      ? { written: [], kept: [], moved: [], failed: [] }
      : writeBack(
          core.stable.fs,
          root,
          writes.map((write) => write.path),
          {
            expected,
            skipUnchanged: true,
            durable: fsyncsWorkingTree(core.layout.configPath),
            leftOut: (rel, isDir) => rules.ignores(rel, isDir),
            ...(stored === undefined ? {} : { states: stored }),
          },
        );
  const yielded = [...result.moved.map((m) => m.path), ...result.failed.map((f) => f.path)];
  for (const path of [...yielded].sort().reverse()) importPath(core.stable, root, path, { subtree: true, rules });
  // a folder kept for the ignored files in it is still there; what the rules leave out goes from stable.db again
  for (const path of [...result.kept].sort()) importPath(core.stable, root, path, { rules });
  pruneIgnored(
    core.stable,
    root,
    writes.map((write) => write.path),
    rules,
  );
  const skipped = skippedEntries(core.stable);
  const failed: CompletedOperation['failed'] = result.failed.map((f) => ({
    path: f.path,
    reason: 'write-failed',
    message: `it could not be written: ${describeFsError(f.error)}`,
  }));
  for (const { path } of result.moved) {
    const unreadable = skipped.find((s) => path === s.path || path.startsWith(s.path + '/') || s.path.startsWith(path + '/'));
    if (unreadable !== undefined)
      failed.push({
        path,
        reason: 'unreadable',
        message: `Cairn cannot read ${unreadable.path} (${unreadable.reason}), so it never writes over it`,
      });
  }
  const written = [...result.written].sort();
  // a folder kept for ignored files: what the operation asked of it is done for every path Cairn tracks
  const settled = [...written, ...result.kept];
  let agent: AgentRecord | undefined;
  const overlayPath = core.layout.overlayPath(agentId);
  const record = core.store.get(agentId);
  if (record !== undefined) {
    const withOverlay = <T>(fn: (overlay: Overlay) => T): T =>
      openOverlay === undefined ? withAgentOverlay(overlayPath, core.stable, agentId, fn) : fn(openOverlay);
    agent = withOverlay((overlay) => {
      if (kind === 'accept') {
        overlay.settle(settled);
        if (yielded.length > 0) {
          const accept = pending.openAccepts(agentId).find((a) => a.id === opId);
          if (accept !== undefined)
            pending.updateAccept(
              opId,
              accept.preImages.filter((p) => !yielded.includes(p.path)),
            );
        }
      } else {
        const keep = new Set(settled);
        reproposeInOverlay(
          overlay,
          writes.filter((w) => keep.has(w.path) && w.image !== undefined).map((w) => w.image!),
        );
      }
      // an overlay that kept no merge base has nothing left to propose, so its changes are not listed
      const left = overlay.touchedPaths().length === 0 ? [] : overlay.changes();
      const changes: ChangeInfo[] = left.map(changeInfoOf);
      return settleRecord(core, record, kind, changes);
    });
  }
  core.stable.transaction(() => pending.clear(opId));
  return { written, kept: result.kept, yielded, failed, agent };
}

/**
 * The agent's state after an accept (accepted once nothing is left) or an undo (reviewing again, once something
 * came back into the proposal: an undo that left every path as the human has it leaves the accept standing). An
 * accepted agent keeps the list of what it last proposed, so listings still say what it changed.
 */
function settleRecord(core: Pick<ProjectCore, 'store'>, record: AgentRecord, kind: PendingKind, changes: ChangeInfo[]): AgentRecord {
  if (kind === 'accept' && record.state === 'reviewing' && changes.length === 0) {
    return core.store.transition(record.id, ['reviewing'], 'accepted', { changes: record.changes ?? [] }, 'accept');
  }
  if (kind === 'undo' && record.state === 'accepted') {
    if (changes.length === 0) return record;
    return core.store.transition(record.id, ['accepted'], 'reviewing', { changes }, 'undo');
  }
  return core.store.update(record.id, { changes });
}

/**
 * Finishes every operation a killed process left half done; run when a project opens, before anything else.
 * One that another process is still running is waited for on the project lock, never finished twice.
 */
export function recoverPendingWrites(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable' | 'store'>): {
  operations: number;
  yielded: string[];
} {
  if (new PendingWrites(core.stable).all().length === 0) return { operations: 0, yielded: [] };
  return withProjectLock(core.layout, () => recoverLocked(core));
}

function recoverLocked(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable' | 'store'>): { operations: number; yielded: string[] } {
  const pending = new PendingWrites(core.stable);
  const byOp = new Map<string, PendingWrite[]>();
  for (const write of pending.all()) byOp.set(write.opId, [...(byOp.get(write.opId) ?? []), write]);
  if (byOp.size > 0)
    removeStaleTemps(
      core.layout.root,
      [...byOp.values()].flat().map((w) => w.path),
    );
  const yielded: string[] = [];
  for (const [opId, writes] of byOp) {
    const first = writes[0]!;
    const completed = completeOperation(core, opId, first.kind, first.agentId, writes);
    yielded.push(...completed.yielded);
    if (completed.agent !== undefined) core.lifecycle.changed(completed.agent);
  }
  return { operations: byOp.size, yielded };
}

/** The temp files a killed write-back left beside its targets (`.cairn-<pid>-<n>.tmp` of a dead process). */
function removeStaleTemps(root: string, paths: readonly string[]): void {
  const dirs = new Set(paths.map((path) => dirname(join(root, path))));
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = /^\.cairn-(\d+)-\d+\.tmp$/.exec(name);
      if (match !== null && !processAlive(Number(match[1]))) rmSync(join(dir, name), { force: true });
    }
  }
}
