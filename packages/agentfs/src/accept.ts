import { applyState } from './apply-state.js';
import type { Change } from './changes.js';
import { type EntryState, hashContent, sameContent, sameState, stateOf } from './entry-state.js';
import { AgentFSError } from './errors.js';
import { kindOfMode } from './mode.js';
import { normalizePath, toRelative } from './path.js';
import type { StoreFileSystem } from './store-fs.js';
import { isBinary } from './text-content.js';
import { type ConflictHunk, mergeText } from './three-way-merge.js';

/** Why a change could not be applied. */
export type ConflictReason = 'content' | 'add-add' | 'delete-modify' | 'modify-delete' | 'binary' | 'type' | 'not-empty';

/**
 * Conflicts `force` never overrides: the path is now of another kind than the proposal expects (file, folder,
 * symlink), or it is a folder that holds entries the proposal does not account for. Forcing would replace a
 * folder with its contents, which no pre-image keeps.
 */
export const UNFORCEABLE: ReadonlySet<ConflictReason> = new Set(['type', 'not-empty']);

/** A change left out of an accept, with the overlapping hunks for text conflicts. */
export interface AcceptConflict {
  path: string;
  reason: ConflictReason;
  hunks: ConflictHunk[];
}

/** How an applied change reached the base. */
export type AppliedHow = 'fast-forward' | 'merged' | 'already' | 'forced';

/** What the base held before and after one applied change: enough to undo it. */
export interface PreImage {
  path: string;
  before: EntryState;
  after: EntryState;
}

/** The outcome of an accept: what was applied (and how), what conflicted, and the pre-images for undo. */
export interface AcceptResult {
  applied: { path: string; how: AppliedHow; after: EntryState }[];
  conflicts: AcceptConflict[];
  preImages: PreImage[];
}

/** Options for accept: a subset of paths (a directory selects what lies below it), `force` to take the overlay's side of conflicts (never of `UNFORCEABLE` ones). */
export interface AcceptOptions {
  paths?: readonly string[];
  force?: boolean;
  /** Decide everything and return it, writing nothing to the base or the overlay. */
  dryRun?: boolean;
  /** All or nothing: if a selected path conflicts (after `force` took the agent's side where it may), apply nothing and return the conflicts. */
  atomic?: boolean;
  /**
   * `Overlay.accept` only: let the applied paths go from the overlay at once (default true). Pass false when
   * the accept runs inside a transaction of the caller's, or when the working tree must be written first, and
   * call `overlay.settle(paths)` once that is done.
   */
  settle?: boolean;
  /** Called inside the transaction after each path is written to the base. */
  onApply?: (path: string) => void;
}

/** Thrown inside the transaction to roll a dry run (or a refused atomic accept) back. */
class RollBack extends Error {
  constructor(readonly result: AcceptResult) {
    super('rolled back');
  }
}

/**
 * Decides and writes every selected change into the base in one transaction. A dry run decides the same way
 * and rolls back; an atomic accept rolls back when anything conflicts.
 */
export function acceptChanges(base: StoreFileSystem, changes: readonly Change[], options: AcceptOptions = {}): AcceptResult {
  try {
    return base.transaction(() => {
      const result = applyChanges(base, changes, options);
      if (options.dryRun) throw new RollBack(result);
      if (options.atomic && result.conflicts.length > 0) throw new RollBack({ applied: [], conflicts: result.conflicts, preImages: [] });
      return result;
    });
  } catch (error) {
    if (error instanceof RollBack) return error.result;
    throw error;
  }
}

function applyChanges(base: StoreFileSystem, changes: readonly Change[], options: AcceptOptions): AcceptResult {
  const selected = selectChanges(changes, options.paths);
  const result: AcceptResult = { applied: [], conflicts: [], preImages: [] };
  for (const change of orderForApply(selected)) {
    const path = '/' + change.path;
    const current = stateOf(base, path);
    if (sameState(current, change.after)) {
      result.applied.push({ path: change.path, how: 'already', after: current });
      continue;
    }
    const decision = ancestorChanged(base, path) ? conflict('type') : decide(base, path, change, current);
    let target: EntryState;
    let how: AppliedHow;
    if (decision.ok) {
      ({ target, how } = decision);
    } else if (options.force && !UNFORCEABLE.has(decision.reason)) {
      target = change.after;
      how = 'forced';
    } else {
      result.conflicts.push({ path: change.path, reason: decision.reason, hunks: decision.hunks });
      continue;
    }
    if (current.kind === 'dir' && target.kind !== 'dir' && base.readdir(path).length > 0) {
      result.conflicts.push({ path: change.path, reason: 'not-empty', hunks: [] });
      continue;
    }
    if (target.kind === 'absent' && current.kind === 'dir') base.rm(path, { recursive: true });
    else applyState(base, path, target);
    result.applied.push({ path: change.path, how, after: target });
    result.preImages.push({ path: change.path, before: current, after: target });
    if (!options.dryRun) options.onApply?.(change.path);
  }
  return result;
}

type Decision = { ok: true; target: EntryState; how: AppliedHow } | { ok: false; reason: ConflictReason; hunks: ConflictHunk[] };

function decide(base: StoreFileSystem, path: string, change: Change, current: EntryState): Decision {
  const { before, after } = change;
  if (after.kind === 'absent' && before.kind === 'dir') {
    if (current.kind !== 'dir') return conflict('type');
    return base.readdir(path).length === 0 ? { ok: true, target: after, how: 'fast-forward' } : conflict('not-empty');
  }
  if (sameState(current, before)) return { ok: true, target: after, how: 'fast-forward' };
  if (kindChanged(before, current, after)) return conflict('type');
  if (after.kind === 'dir' && current.kind === 'dir') {
    const agentChangedMode = before.kind === 'dir' && (before.mode & 0o7777) !== (after.mode & 0o7777);
    return { ok: true, target: agentChangedMode ? after : current, how: 'merged' };
  }
  if (sameContent(current, before) && current.kind !== 'absent' && after.kind === current.kind) {
    const agentChangedMode = before.kind !== 'absent' && (before.mode & 0o7777) !== (after.mode & 0o7777);
    return { ok: true, target: agentChangedMode ? after : withMode(after, current), how: 'merged' };
  }
  if (after.kind === 'file' && current.kind === 'file' && (before.kind === 'file' || before.kind === 'absent')) {
    const baseBytes = before.kind === 'file' ? before.content : Buffer.alloc(0);
    if (isBinary(baseBytes) || isBinary(current.content) || isBinary(after.content)) return conflict('binary');
    if (sameContent(current, after)) return { ok: true, target: { ...after, mode: current.mode }, how: 'merged' };
    const merged = mergeText(baseBytes.toString('utf8'), current.content.toString('utf8'), after.content.toString('utf8'));
    if (!merged.clean) return { ok: false, reason: before.kind === 'absent' ? 'add-add' : 'content', hunks: merged.conflicts };
    const content = Buffer.from(merged.text, 'utf8');
    const mode = before.kind === 'file' && before.mode !== after.mode ? after.mode : current.mode;
    return { ok: true, target: { kind: 'file', mode, hash: hashContent(content), content }, how: 'merged' };
  }
  if (before.kind === 'absent') return conflict('add-add');
  if (after.kind === 'absent') return conflict('modify-delete');
  if (current.kind === 'absent') return conflict('delete-modify');
  return conflict('type');
}

/** `state` with the permission bits of `from` (both of one kind). */
function withMode(state: EntryState, from: EntryState): EntryState {
  return state.kind === 'absent' || from.kind === 'absent' ? state : { ...state, mode: from.mode };
}

/** True when a folder above the path is no longer a folder in the base (a file, or a symbolic link). */
function ancestorChanged(base: StoreFileSystem, path: string): boolean {
  const parts = path.split('/').filter((part) => part !== '');
  for (let i = 1; i < parts.length; i++) {
    const state = base.locate('/' + parts.slice(0, i).join('/'), false);
    if (state === undefined) return false;
    if (kindOfMode(state.entry.mode) !== 'dir') return true;
  }
  return false;
}

/** True when the path now holds another kind of entry (file, folder, symlink) than the agent started from or proposes. */
function kindChanged(before: EntryState, current: EntryState, after: EntryState): boolean {
  if (current.kind === 'absent' || current.kind === after.kind) return false;
  return after.kind !== 'absent' || current.kind !== before.kind;
}

function conflict(reason: ConflictReason): Decision {
  return { ok: false, reason, hunks: [] };
}

function selectChanges(changes: readonly Change[], paths: readonly string[] | undefined): Change[] {
  if (paths === undefined) return [...changes];
  const wanted = paths.map((p) => toRelative(normalizePath(p, 'accept')));
  const picked = changes.filter((c) => wanted.some((w) => w === '' || c.path === w || c.path.startsWith(w + '/')));
  for (const w of wanted) {
    if (!picked.some((c) => w === '' || c.path === w || c.path.startsWith(w + '/'))) {
      throw new AgentFSError('EINVAL', 'accept', w, 'the overlay has no change at this path');
    }
  }
  return picked;
}

/** Deletions of files first, then of directories (deepest first), then creations and edits in path order (parents first). */
function orderForApply(changes: readonly Change[]): Change[] {
  const isDeletion = (c: Change) => c.after.kind === 'absent';
  const fileDeletes = changes.filter((c) => isDeletion(c) && c.before.kind !== 'dir');
  const dirDeletes = changes.filter((c) => isDeletion(c) && c.before.kind === 'dir');
  dirDeletes.sort((a, b) => b.path.split('/').length - a.path.split('/').length || (a.path < b.path ? -1 : 1));
  return [...fileDeletes, ...dirDeletes, ...changes.filter((c) => !isDeletion(c))];
}

/**
 * A path undo left alone: its base content moved on since the accept (`changed`, overwritten only when
 * forced), it is now of another kind than the accept left (`kind`), or it is a folder holding entries the
 * accept did not put there (`not-empty`); the last two are never forced.
 */
export interface UndoConflict {
  path: string;
  reason: 'changed' | 'kind' | 'not-empty';
  expected: EntryState;
  found: EntryState;
}

/** What an undo did: the paths restored, those left alone, and those restored over a later change (`force`). */
export interface UndoResult {
  restored: string[];
  conflicts: UndoConflict[];
  /** Paths whose later state was overwritten by a forced undo, with that state, so the caller can keep it. */
  forced: UndoConflict[];
}

/**
 * Restores the pre-images of an accept in one transaction; paths changed since are reported, not overwritten, unless
 * forced. A path that holds again what it held before the accept (its change undone by hand) counts as restored.
 */
export function undoAccept(base: StoreFileSystem, preImages: readonly PreImage[], options: { force?: boolean } = {}): UndoResult {
  const restored: string[] = [];
  const conflicts: UndoConflict[] = [];
  const forced: UndoConflict[] = [];
  base.transaction(() => {
    for (const image of [...preImages].reverse()) {
      const path = '/' + image.path;
      const found = stateOf(base, path);
      const left = (reason: UndoConflict['reason']) => conflicts.push({ path: image.path, reason, expected: image.after, found });
      const moved = !sameState(found, image.after);
      if (moved && sameState(found, image.before) && !conflicts.some((c) => c.path === image.path)) {
        restored.push(image.path);
        continue;
      }
      if (moved && found.kind !== 'absent' && found.kind !== image.after.kind) {
        left('kind');
        continue;
      }
      if (found.kind === 'dir' && image.before.kind !== 'dir' && base.readdir(path).length > 0) {
        left('not-empty');
        continue;
      }
      if (moved && !options.force) {
        left('changed');
        continue;
      }
      if (moved) forced.push({ path: image.path, reason: 'changed', expected: image.after, found });
      applyState(base, path, image.before);
      restored.push(image.path);
    }
  });
  return { restored: restored.reverse(), conflicts, forced };
}
