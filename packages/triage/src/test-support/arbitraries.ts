import fc from 'fast-check';
import type { Triage } from '../decision.js';
import type { Actor, BranchName, Description, Reason } from '../names.js';
import type { Thread } from '../thread.js';
import type { Timestamp } from '../timestamp.js';

/** One line of printable text without surrounding whitespace (valid reason or description). */
export const lineArb = fc
  .string({
    unit: fc.constantFrom('a', 'b', 'Z', '0', ' ', ':', '-', '|', '#', '*', 'é', '✓', '/', '\\', '"'),
    minLength: 1,
    maxLength: 40,
  })
  .map((s) => s.trim())
  .filter((s) => s.length > 0);

export const actorArb = fc
  .tuple(fc.constantFrom('a', 'z', 'Q', '7'), fc.string({ unit: fc.constantFrom('a', 'b', '0', '.', '_', '-'), maxLength: 12 }))
  .map(([first, rest]) => (first + rest) as Actor);

export const branchArb = fc
  .array(fc.string({ unit: fc.constantFrom('a', 'b', 'x', '1', '-', '_'), minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.map((p) => (p.startsWith('-') ? 'x' + p : p)).join('/') as BranchName);

export const timestampArb = fc
  .record({
    year: fc.integer({ min: 1970, max: 2100 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    seconds: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }),
    zone: fc.constantFrom('Z', '+01:00', '-05:30'),
  })
  .map(({ year, month, day, hour, minute, seconds, zone }) => {
    const two = (n: number) => String(n).padStart(2, '0');
    return `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}${seconds === undefined ? '' : ':' + two(seconds)}${zone}` as Timestamp;
  });

export const triageArb: fc.Arbitrary<Triage> = fc.oneof(
  lineArb.map((reason) => ({ type: 'delete' as const, reason: reason as Reason })),
  lineArb.map((reason) => ({ type: 'defer' as const, reason: reason as Reason })),
  actorArb.map((actor) => ({ type: 'delegate' as const, actor })),
  fc.constant({ type: 'do' as const, action: { type: 'merge' as const } }),
  branchArb.map((branch) => ({ type: 'do' as const, action: { type: 'reply' as const, branch } })),
  lineArb.map((description) => ({ type: 'do' as const, action: { type: 'custom' as const, description: description as Description } })),
);

const bodyLineArb = fc.oneof(lineArb, fc.constant(''), fc.constant('---'), fc.constant('# heading in body'), fc.constant('  indented'));

export const threadArb: fc.Arbitrary<Thread> = fc
  .record({
    title: lineArb.filter((t) => !t.startsWith('#')),
    from: actorArb,
    branch: branchArb,
    received: timestampArb,
    bodyLines: fc.array(bodyLineArb, { maxLength: 8 }),
    triage: fc.option(fc.record({ decision: triageArb, actor: actorArb, timestamp: timestampArb }), { nil: undefined }),
  })
  .map(({ bodyLines, triage, ...rest }) => {
    const lines = [...bodyLines];
    while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
    while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
    const thread: Thread = { ...rest, body: lines.join('\n') };
    if (triage !== undefined) thread.triage = triage;
    return thread;
  });
