import type { AcceptOutcome, ConflictInfo, UndoOutcome } from '@cairn/orchestrator';
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
  'not-empty': 'the agent deleted a folder you added to',
  'changed-on-disk': 'you saved the file while the accept ran; it was left as you have it',
  'changed-since-accept': 'you changed the file since the accept; it was left as you have it',
};

/** What an accept applied (and how), then each conflict with its hunks: yours, the base's, the agent's. */
export function renderAccept(outcome: AcceptOutcome, paint: Paint): string[] {
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
    lines.push(
      `Edit your files and accept again, take the agent's side with \`cairn accept ${outcome.agent.id} --force\`, apply the rest with \`--partial\`, or reject it.`,
    );
  }
  lines.push(
    `agent ${outcome.agent.id} is ${state}${state === 'reviewing' && outcome.agent.changes !== undefined ? ` (${outcome.agent.changes.length} change${outcome.agent.changes.length === 1 ? '' : 's'} left)` : ''}`,
  );
  return lines;
}

function renderConflict(conflict: ConflictInfo, paint: Paint): string[] {
  const lines = [`${paint.red('✗')} ${conflict.path} ${paint.red('conflict')}: ${REASONS[conflict.reason] ?? conflict.reason}`];
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
    lines.push(`${paint.red('✗')} ${conflict.path}: ${REASONS[conflict.reason] ?? conflict.reason}`);
  if (outcome.conflicts.length > 0)
    lines.push(`use \`cairn undo ${outcome.agent.id} --force\` to restore ${outcome.conflicts.length === 1 ? 'it' : 'them'} anyway`);
  lines.push(`agent ${outcome.agent.id} is ${outcome.agent.state}: its changes are a proposal again`);
  return lines;
}
