import { diff3Merge } from 'node-diff3';
import { splitLines } from './text-content.js';

/** One overlapping edit: the lines on each side, with 1-based start lines in each version. */
export interface ConflictHunk {
  ours: { start: number; lines: string[] };
  base: { start: number; lines: string[] };
  theirs: { start: number; lines: string[] };
}

/** The outcome of a three-way line merge. */
export type MergeOutcome = { clean: true; text: string } | { clean: false; conflicts: ConflictHunk[] };

/**
 * Merges `theirs` into `ours`, both descended from `base`, line by line. Edits to the same or adjacent
 * lines of `base` that differ are conflicts; identical edits on both sides are not.
 */
export function mergeText(base: string, ours: string, theirs: string): MergeOutcome {
  const blocks = diff3Merge(splitLines(ours), splitLines(base), splitLines(theirs), { excludeFalseConflicts: true });
  const out: string[] = [];
  const conflicts: ConflictHunk[] = [];
  for (const block of blocks) {
    if (block.ok !== undefined) {
      out.push(...block.ok);
      continue;
    }
    const c = block.conflict!;
    conflicts.push({
      ours: { start: c.aIndex + 1, lines: c.a },
      base: { start: c.oIndex + 1, lines: c.o },
      theirs: { start: c.bIndex + 1, lines: c.b },
    });
  }
  return conflicts.length === 0 ? { clean: true, text: out.join('') } : { clean: false, conflicts };
}
