import { applyPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashContent } from './entry-state.js';
import { mergeText } from './three-way-merge.js';
import { formatChangeDiff } from './unified-diff.js';

const lineArb = fc.constantFrom('a\n', 'b\n', 'c\n', 'd\n', 'e\n', 'x', '\r\n', '\n');
const textArb = fc.array(lineArb, { maxLength: 12 }).map((lines) => lines.join(''));

describe('three-way line merge', () => {
  it('one-sided changes merge to that side; identical changes merge to either', () => {
    fc.assert(
      fc.property(textArb, textArb, (base, changed) => {
        expect(mergeText(base, base, changed)).toEqual({ clean: true, text: changed });
        expect(mergeText(base, changed, base)).toEqual({ clean: true, text: changed });
        expect(mergeText(base, changed, changed)).toEqual({ clean: true, text: changed });
      }),
    );
  });

  it('never throws, and a clean merge keeps both sides’ edits when they are far apart', () => {
    const base = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\n';
    expect(mergeText(base, base.replace('l1', 'L1'), base.replace('l7', 'L7'))).toEqual({
      clean: true,
      text: base.replace('l1', 'L1').replace('l7', 'L7'),
    });
    fc.assert(fc.property(textArb, textArb, textArb, (b, o, t) => void mergeText(b, o, t)));
  });

  it('is symmetric: swapping the two sides gives the same clean text, or conflicts at the same base lines', () => {
    fc.assert(
      fc.property(textArb, textArb, textArb, (base, ours, theirs) => {
        const one = mergeText(base, ours, theirs);
        const other = mergeText(base, theirs, ours);
        expect(other.clean).toBe(one.clean);
        if (one.clean && other.clean) expect(other.text).toBe(one.text);
        if (!one.clean && !other.clean) expect(other.conflicts.map((c) => c.base)).toEqual(one.conflicts.map((c) => c.base));
      }),
      { numRuns: 300 },
    );
  });

  it('applies edits of both sides that are apart, and conflicts where both changed one line differently', () => {
    const blockArb = fc.array(fc.constantFrom('a\n', 'b\n', 'c\n', '\n'), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(blockArb, blockArb, blockArb, blockArb, (first, second, firstEdit, secondEdit) => {
        const join = (x: string[], y: string[]) => [...x, '--- separator ---\n', ...y].join('');
        const merged = mergeText(join(first, second), join(firstEdit, second), join(first, secondEdit));
        expect(merged).toEqual({ clean: true, text: join(firstEdit, secondEdit) });
      }),
      { numRuns: 300 },
    );
    const conflicted = mergeText('a\nb\nc\n', 'a\nB1\nc\n', 'a\nB2\nc\n');
    expect(conflicted).toEqual({
      clean: false,
      conflicts: [{ ours: { start: 2, lines: ['B1\n'] }, base: { start: 2, lines: ['b\n'] }, theirs: { start: 2, lines: ['B2\n'] } }],
    });
    expect(mergeText('a\nb\nc\n', 'A\nb\nc\n', 'a\nB\nc\n').clean).toBe(false);
  });

  it('merges a 200,000-line file edited at both ends (no line list is spread onto the stack)', () => {
    const base = Array.from({ length: 200_000 }, (_, i) => `const value${i} = ${i};\n`).join('');
    const ours = base.replace('const value10 = 10;', 'const value10 = "ours";');
    const theirs = base.replace('const value199990 = 199990;', 'const value199990 = "theirs";');
    const merged = mergeText(base, ours, theirs);
    expect(merged).toEqual({ clean: true, text: ours.replace('const value199990 = 199990;', 'const value199990 = "theirs";') });
  });

  it('keeps CRLF line endings and a missing final newline', () => {
    const base = 'a\r\nb\r\nc\r\nd\r\ne';
    expect(mergeText(base, base.replace('a', 'A'), base.replace('e', 'E'))).toEqual({ clean: true, text: 'A\r\nb\r\nc\r\nd\r\nE' });
  });
});

describe('unified diff', () => {
  it('applying the printed patch to the old text gives the new text', () => {
    fc.assert(
      fc.property(textArb, textArb, (before, after) => {
        fc.pre(before !== after);
        const diff = formatChangeDiff({
          path: 'f.txt',
          status: 'modified',
          kind: 'file',
          before: { kind: 'file', mode: 0o100644, hash: hashContent(Buffer.from(before)), content: Buffer.from(before) },
          after: { kind: 'file', mode: 0o100644, hash: hashContent(Buffer.from(after)), content: Buffer.from(after) },
        });
        const patch = diff.split('\n').slice(1).join('\n');
        expect(applyPatch(before, patch)).toBe(after);
      }),
    );
  });
});
