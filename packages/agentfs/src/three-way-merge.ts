import { diffLines } from './line-diff.js';
import { splitLines } from './text-content.js';

/** One overlapping edit: the lines on each side, with 1-based start lines in each version. */
export interface ConflictHunk {
  ours: { start: number; lines: string[] };
  base: { start: number; lines: string[] };
  theirs: { start: number; lines: string[] };
}

/** The outcome of a three-way line merge. */
export type MergeOutcome = { clean: true; text: string } | { clean: false; conflicts: ConflictHunk[] };

/** An edit of one side against the base: base lines `[baseStart, baseEnd)` became the side's `[start, end)`. */
interface SideEdit {
  side: 0 | 1;
  baseStart: number;
  baseEnd: number;
  start: number;
  end: number;
}

/**
 * Merges `theirs` into `ours`, both descended from `base`, line by line (diff3). Edits to the same or adjacent
 * lines of `base` that differ are conflicts; identical edits on both sides are not. Each side is diffed against
 * the base once (`diffLines`), so the merge costs what two diffs do.
 */
export function mergeText(base: string, ours: string, theirs: string): MergeOutcome {
  const o = splitLines(base);
  const sides = [splitLines(ours), splitLines(theirs)] as const;
  const edits = sortedEdits(o, sides);
  const out: string[] = [];
  const conflicts: ConflictHunk[] = [];
  let at = 0;
  for (let first = 0; first < edits.length; ) {
    // a region: edits whose base ranges overlap or touch, from either side
    const regionStart = edits[first]!.baseStart;
    let regionEnd = edits[first]!.baseEnd;
    let last = first;
    while (last + 1 < edits.length && edits[last + 1]!.baseStart <= regionEnd) {
      last++;
      regionEnd = Math.max(regionEnd, edits[last]!.baseEnd);
    }
    for (; at < regionStart; at++) out.push(o[at]!);
    if (first === last) {
      const edit = edits[first]!;
      const lines = sides[edit.side];
      for (let i = edit.start; i < edit.end; i++) out.push(lines[i]!);
    } else {
      const a = spanOf(edits, first, last, 0, regionStart, regionEnd);
      const b = spanOf(edits, first, last, 1, regionStart, regionEnd);
      if (sameLines(sides[0], a.start, a.end, sides[1], b.start, b.end)) {
        for (let i = a.start; i < a.end; i++) out.push(sides[0][i]!);
      } else {
        conflicts.push({
          ours: { start: a.start + 1, lines: sides[0].slice(a.start, a.end) },
          base: { start: regionStart + 1, lines: o.slice(regionStart, regionEnd) },
          theirs: { start: b.start + 1, lines: sides[1].slice(b.start, b.end) },
        });
      }
    }
    at = regionEnd;
    first = last + 1;
  }
  if (conflicts.length > 0) return { clean: false, conflicts };
  for (; at < o.length; at++) out.push(o[at]!);
  return { clean: true, text: out.join('') };
}

/** The edits of both sides against the base, by where they start in it (ours first where both start at one line). */
function sortedEdits(o: readonly string[], sides: readonly [readonly string[], readonly string[]]): SideEdit[] {
  const edits: SideEdit[] = [];
  for (const side of [0, 1] as const) {
    for (const e of diffLines(o, sides[side])) edits.push({ side, baseStart: e.aStart, baseEnd: e.aEnd, start: e.bStart, end: e.bEnd });
  }
  return edits.sort((x, y) => x.baseStart - y.baseStart || x.side - y.side);
}

/**
 * The lines of one side that a region of the base `[regionStart, regionEnd)` became: the side's own edits in the
 * region, widened by the unchanged base lines at the region's ends that only the other side edited.
 */
function spanOf(
  edits: readonly SideEdit[],
  first: number,
  last: number,
  side: 0 | 1,
  regionStart: number,
  regionEnd: number,
): { start: number; end: number } {
  let start = Infinity;
  let end = -Infinity;
  let baseStart = Infinity;
  let baseEnd = -Infinity;
  for (let k = first; k <= last; k++) {
    const edit = edits[k]!;
    if (edit.side !== side) continue;
    start = Math.min(start, edit.start);
    end = Math.max(end, edit.end);
    baseStart = Math.min(baseStart, edit.baseStart);
    baseEnd = Math.max(baseEnd, edit.baseEnd);
  }
  if (start === Infinity) {
    // this side left the region as the base has it: find where the region sits in it from the nearest edit before
    const offset = offsetBefore(edits, first, side);
    return { start: regionStart + offset, end: regionEnd + offset };
  }
  return { start: start - (baseStart - regionStart), end: end + (regionEnd - baseEnd) };
}

/** How far a side's line numbers have moved from the base's by the side's edits before `index`. */
function offsetBefore(edits: readonly SideEdit[], index: number, side: 0 | 1): number {
  for (let k = index - 1; k >= 0; k--) {
    const edit = edits[k]!;
    if (edit.side === side) return edit.end - edit.baseEnd;
  }
  return 0;
}

function sameLines(a: readonly string[], aStart: number, aEnd: number, b: readonly string[], bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}
