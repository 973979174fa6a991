import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffLines, type LineEdit } from './line-diff.js';
import { markChanges } from './myers-diff.js';

const lineArb = fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', '\n', 'x');
const linesArb = fc.array(lineArb, { maxLength: 40 });

/** The length of a longest common subsequence, by dynamic programming (the slow, obvious way). */
function lcsLength<T>(a: readonly T[], b: readonly T[]): number {
  let row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const next = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) next[j] = a[i - 1] === b[j - 1] ? row[j - 1]! + 1 : Math.max(row[j]!, next[j - 1]!);
    row = next;
  }
  return row[b.length]!;
}

/** `a` with the edits applied, checking on the way that every line left alone is equal on both sides. */
function applyEdits(a: readonly string[], b: readonly string[], edits: readonly LineEdit[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  for (const edit of edits) {
    expect(edit.aStart - i).toBe(edit.bStart - j);
    for (; i < edit.aStart; i++, j++) {
      expect(a[i]).toBe(b[j]);
      out.push(a[i]!);
    }
    expect(edit.aEnd > edit.aStart || edit.bEnd > edit.bStart).toBe(true);
    out.push(...b.slice(edit.bStart, edit.bEnd));
    i = edit.aEnd;
    j = edit.bEnd;
  }
  expect(a.length - i).toBe(b.length - j);
  for (; i < a.length; i++, j++) {
    expect(a[i]).toBe(b[j]);
    out.push(a[i]!);
  }
  return out;
}

function changedCount(edits: readonly LineEdit[]): number {
  return edits.reduce((sum, e) => sum + (e.aEnd - e.aStart) + (e.bEnd - e.bStart), 0);
}

describe('line diff (Myers, linear space)', () => {
  it('turns a into b, changing only lines outside a longest common subsequence (the fewest edits)', () => {
    fc.assert(
      fc.property(linesArb, linesArb, (a, b) => {
        const edits = diffLines(a, b);
        expect(applyEdits(a, b, edits)).toEqual(b);
        expect(changedCount(edits)).toBe(a.length + b.length - 2 * lcsLength(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('separates edits by at least one common line', () => {
    fc.assert(
      fc.property(linesArb, linesArb, (a, b) => {
        const edits = diffLines(a, b);
        for (let k = 1; k < edits.length; k++) expect(edits[k]!.aStart).toBeGreaterThan(edits[k - 1]!.aEnd);
      }),
    );
  });

  it('stays a valid alignment when the search gives up early on a cost limit', () => {
    const seqArb = fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 60 });
    fc.assert(
      fc.property(seqArb, seqArb, fc.integer({ min: 1, max: 4 }), (xs, ys, limit) => {
        const a = Int32Array.from(xs);
        const b = Int32Array.from(ys);
        const changedA = new Uint8Array(a.length);
        const changedB = new Uint8Array(b.length);
        markChanges(a, b, changedA, changedB, limit);
        const keptA = xs.filter((_, i) => changedA[i] === 0);
        const keptB = ys.filter((_, j) => changedB[j] === 0);
        expect(keptA).toEqual(keptB);
      }),
      { numRuns: 500 },
    );
  });

  it('diffs a 20,000-line rewrite and a reversed file without a quadratic search', () => {
    const a = Array.from({ length: 20_000 }, (_, i) => (i % 8 === 7 ? '\n' : `line ${i} of the old file\n`));
    const b = a.map((line) => (line === '\n' ? line : line.replace('old', 'new')));
    const rewrite = diffLines(a, b);
    expect(applyEdits(a, b, rewrite)).toEqual(b);
    const reversed = [...a].reverse();
    expect(applyEdits(a, reversed, diffLines(a, reversed))).toEqual(reversed);
  });
});
