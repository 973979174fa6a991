import { markChanges } from './myers-diff.js';

/** A run of lines that differ: `a[aStart, aEnd)` becomes `b[bStart, bEnd)` (one of the two may be empty). */
export interface LineEdit {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** The fewest edits a search may weigh before it settles for a good split (as git's diff does, about √(N + M)). */
const MIN_COST_LIMIT = 256;

/**
 * The edits that turn the lines `a` into the lines `b`, in order, each separated from the next by at least one
 * common line. Lines are compared whole (terminators included). Before Myers' algorithm runs, what both ends
 * share is set aside and so are the lines that occur on one side only (they can only be changes): a rewrite of
 * a whole file then costs about as much as reading it, as in git and GNU diff.
 */
export function diffLines(a: readonly string[], b: readonly string[]): LineEdit[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let aEnd = a.length;
  let bEnd = b.length;
  while (aEnd > start && bEnd > start && a[aEnd - 1] === b[bEnd - 1]) {
    aEnd--;
    bEnd--;
  }
  const ids = new Map<string, number>();
  const idsOf = (lines: readonly string[], from: number, to: number): Int32Array => {
    const out = new Int32Array(to - from);
    for (let i = from; i < to; i++) {
      const line = lines[i]!;
      let id = ids.get(line);
      if (id === undefined) {
        id = ids.size;
        ids.set(line, id);
      }
      out[i - from] = id;
    }
    return out;
  };
  const aIds = idsOf(a, start, aEnd);
  const bIds = idsOf(b, start, bEnd);
  const changedA = new Uint8Array(aIds.length);
  const changedB = new Uint8Array(bIds.length);
  if (aIds.length > 0 && bIds.length > 0) markMiddle(aIds, bIds, ids.size, changedA, changedB);
  else {
    changedA.fill(1);
    changedB.fill(1);
  }
  return collectEdits(changedA, changedB, start);
}

/** Marks the changed lines of the middle parts, running Myers only over the lines that occur on both sides. */
function markMiddle(aIds: Int32Array, bIds: Int32Array, idCount: number, changedA: Uint8Array, changedB: Uint8Array): void {
  const inA = new Uint8Array(idCount);
  const inB = new Uint8Array(idCount);
  for (const id of aIds) inA[id] = 1;
  for (const id of bIds) inB[id] = 1;
  const keptA = keep(aIds, inB, changedA);
  const keptB = keep(bIds, inA, changedB);
  const a = Int32Array.from(keptA, (i) => aIds[i]!);
  const b = Int32Array.from(keptB, (i) => bIds[i]!);
  const marksA = new Uint8Array(a.length);
  const marksB = new Uint8Array(b.length);
  const limit = Math.max(MIN_COST_LIMIT, Math.ceil(Math.sqrt(a.length + b.length)));
  markChanges(a, b, marksA, marksB, limit);
  for (let i = 0; i < keptA.length; i++) if (marksA[i] === 1) changedA[keptA[i]!] = 1;
  for (let i = 0; i < keptB.length; i++) if (marksB[i] === 1) changedB[keptB[i]!] = 1;
}

/** The indices of the lines the other side also has; the others are marked changed. */
function keep(ids: Int32Array, other: Uint8Array, changed: Uint8Array): Int32Array {
  const kept = new Int32Array(ids.length);
  let count = 0;
  for (let i = 0; i < ids.length; i++) {
    if (other[ids[i]!] === 1) kept[count++] = i;
    else changed[i] = 1;
  }
  return kept.subarray(0, count);
}

/** Runs of changed lines as edits; the unchanged lines of the two sides pair up in order. */
function collectEdits(changedA: Uint8Array, changedB: Uint8Array, offset: number): LineEdit[] {
  const edits: LineEdit[] = [];
  let i = 0;
  let j = 0;
  while (i < changedA.length || j < changedB.length) {
    if (i < changedA.length && j < changedB.length && changedA[i] === 0 && changedB[j] === 0) {
      i++;
      j++;
      continue;
    }
    const aStart = i;
    const bStart = j;
    while (i < changedA.length && changedA[i] === 1) i++;
    while (j < changedB.length && changedB[j] === 1) j++;
    if (i === aStart && j === bStart) throw new Error('diffLines: the unchanged lines of the two sides do not pair up');
    edits.push({ aStart: aStart + offset, aEnd: i + offset, bStart: bStart + offset, bEnd: j + offset });
  }
  return edits;
}
