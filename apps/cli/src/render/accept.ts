import type { AcceptOutcome, ConflictInfo, UndoOutcome } from '@cairn/daemon/client';
import type { Paint } from '../output.js';

const HOW: Record<string, string> = {
  'fast-forward': 'applied',
  merged: 'merged with your edits',
  already: 'already there',
  forced: "forced (the agent's side won)",
};

const REASONS: Record<string, string> = {
  content: 'both you and the agent changed the same lines',
  'add-add': 'you and the agent both created this file',
  'modify-delete': 'the agent deleted a file you changed',
  'delete-modify': 'the agent changed a file you deleted',
  binary: 'a binary file changed on both sides',
  type: 'the path changed kind on both sides',
  'not-empty': 'the agent replaces or deletes a folder you added to',
  'changed-on-disk': 'you saved the file while the accept ran; it was left as you have it',
  'changed-since-accept': 'you changed the file since the accept; it was left as you have it',
  unreadable: 'Cairn cannot read what is there, so it never writes over it',
  'write-failed': 'it could not be written (permissions, a full or read-only disk); it was left as it is',
  'kind-changed-since-accept': 'it changed kind since the accept (file, folder, symlink); it was left as you have it, even with --force',
};

/** Where an undo's words differ from an accept's. */
const UNDO_REASONS: Record<string, string> = {
  'changed-on-disk': 'the file changed on disk while the undo ran; it was left as it is',
};

/** Conflicts `--force` never overrides: forcing would delete something of yours that undo could not bring back. */
const UNFORCEABLE = new Set(['type', 'not-empty']);

/** What the user asked the accept for, so the suggestion is the exact command to run next. */
export interface AcceptRequest {
  paths: readonly string[];
  force: boolean;
  partial: boolean;
}

/** What an accept applied (and how), then each conflict with its hunks: yours, the base's, the agent's. */
export function renderAccept(outcome: AcceptOutcome, paint: Paint, request?: AcceptRequest): string[] {
  const lines: string[] = [];
  for (const applied of outcome.applied) lines.push(`${paint.green('✓')} ${applied.path} ${paint.dim(HOW[applied.how] ?? applied.how)}`);
  for (const conflict of outcome.conflicts) lines.push(...renderConflict(conflict, paint));
  const state = outcome.agent.state;
  if (outcome.conflicts.length > 0) {
    const nothing = outcome.applied.length === 0;
    lines.push(
      '',
      `${paint.red(`${outcome.conflicts.length} conflict${outcome.conflicts.length === 1 ? '' : 's'}`)}: ${nothing ? 'nothing was applied (a proposal is accepted whole)' : `nothing was written for ${outcome.conflicts.length === 1 ? 'that path' : 'those paths'}`}.`,
    );
    lines.push(...suggestNext(outcome, request));
  }
  lines.push(
    `agent ${outcome.agent.id} is ${state}${state === 'reviewing' && outcome.agent.changes !== undefined ? ` (${outcome.agent.changes.length} change${outcome.agent.changes.length === 1 ? '' : 's'} left)` : ''}`,
  );
  return lines;
}

/** What to run next after conflicts: the exact command, since some conflicts `--force` does not take. */
function suggestNext(outcome: AcceptOutcome, request: AcceptRequest | undefined): string[] {
  const id = outcome.agent.id;
  const kinds = outcome.conflicts.filter((c) => UNFORCEABLE.has(c.reason));
  if (outcome.conflicts.every((c) => c.reason === 'write-failed' || c.reason === 'unreadable'))
    return [
      `Nothing of yours was changed there. Make ${outcome.conflicts.length === 1 ? 'it' : 'them'} readable and writable, then run \`cairn accept ${id}\` again.`,
    ];
  if (kinds.length === 0)
    return [
      `Edit your files and accept again, take the agent's side with \`cairn accept ${id} --force\`, apply the rest with \`--partial\`, or reject it.`,
    ];
  const named = kinds.map((c) => c.path).join(', ');
  const lines = [
    `${named} ${kinds.length === 1 ? 'is' : 'are'} never forced, even with --force: what is there now is of another kind, and forcing could lose what is yours where undo cannot bring it back.`,
  ];
  const others =
    outcome.conflicts.length > kinds.length || outcome.applied.length > 0 || (outcome.agent.changes?.length ?? 0) > kinds.length;
  if (request?.partial !== true && others) {
    const paths = (request?.paths ?? []).map(shellQuote).join(' ');
    const force = request?.force === true ? ' --force' : '';
    lines.push(`Accept the other paths with \`cairn accept ${id}${paths === '' ? '' : ` ${paths}`} --partial${force}\`.`);
  }
  lines.push(
    `To take the agent's version of ${kinds.length === 1 ? 'it' : 'them'}, move yours aside and accept again; or reject it with \`cairn reject ${id}\`.`,
  );
  return lines;
}

/** A word as the shell reads it back: as it is when plain, else in single quotes. */
function shellQuote(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function renderConflict(conflict: ConflictInfo, paint: Paint): string[] {
  const why = conflict.detail ?? REASONS[conflict.reason] ?? conflict.reason;
  const lines = [`${paint.red('✗')} ${conflict.path} ${paint.red('conflict')}: ${why}`];
  for (const hunk of conflict.hunks) {
    lines.push(paint.dim(`  <<<<<<< yours (line ${hunk.ours.start})`));
    for (const line of hunk.ours.lines) lines.push(`  ${paint.green(line)}`);
    lines.push(paint.dim(`  ||||||| base (line ${hunk.base.start})`));
    for (const line of hunk.base.lines) lines.push(`  ${line}`);
    lines.push(paint.dim('  ======='));
    for (const line of hunk.theirs.lines) lines.push(`  ${paint.cyan(line)}`);
    lines.push(paint.dim(`  >>>>>>> agent (line ${hunk.theirs.start})`));
  }
  return lines;
}

/** What an undo restored, and what it left because you changed it since. */
export function renderUndo(outcome: UndoOutcome, paint: Paint): string[] {
  const lines = outcome.restored.map((path) => `${paint.green('↺')} ${path} restored`);
  for (const conflict of outcome.conflicts)
    lines.push(`${paint.red('✗')} ${conflict.path}: ${UNDO_REASONS[conflict.reason] ?? REASONS[conflict.reason] ?? conflict.reason}`);
  if (outcome.conflicts.some((c) => c.reason === 'changed-since-accept'))
    lines.push(`use \`cairn undo ${outcome.agent.id} --force\` to restore ${outcome.conflicts.length === 1 ? 'it' : 'them'} anyway`);
  lines.push(
    outcome.agent.state === 'accepted'
      ? `agent ${outcome.agent.id} is still accepted: nothing was undone`
      : `agent ${outcome.agent.id} is ${outcome.agent.state}: ${outcome.conflicts.length === 0 ? 'its changes are' : 'what was undone is'} a proposal again`,
  );
  return lines;
}
