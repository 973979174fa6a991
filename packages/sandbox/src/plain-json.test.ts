import { describe, expect, it } from 'vitest';
import { plainJsonProblem } from './plain-json.js';

describe('tool results must be plain JSON', () => {
  it.each([
    ['text', 'hello'],
    ['numbers, booleans, null', [1, -2.5, true, false, null]],
    ['nested plain objects and arrays', { a: [{ b: 'c' }, []], 'odd key': { 'x-y': 1 } }],
    ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 1 })],
    ['undefined properties (dropped, as JSON does)', { a: undefined, b: 1 }],
    [
      'the same object twice, not a cycle',
      (() => {
        const shared = { x: 1 };
        return { a: shared, b: [shared, shared] };
      })(),
    ],
  ])('admits %s', (_what, value) => expect(plainJsonProblem(value)).toBeUndefined());

  it.each([
    ['a Buffer', Buffer.from('text'), /the result is binary data \(Buffer\)/],
    ['a Uint8Array inside an object', { data: new Uint8Array(2) }, /the result at \.data is binary data \(Uint8Array\)/],
    ['an ArrayBuffer', new ArrayBuffer(4), /binary data \(ArrayBuffer\)/],
    ['a DataView', new DataView(new ArrayBuffer(4)), /binary data \(DataView\)/],
    ['a Map', new Map([[1, 2]]), /is a Map, not a plain object/],
    ['a Set in an array', [1, new Set([1])], /at \[1\] is a Set/],
    ['a Date', { when: new Date(0) }, /at \.when is a Date/],
    [
      'a class instance',
      new (class Point {
        x = 1;
      })(),
      /is a Point, not a plain object/,
    ],
    ['a function', { f: () => 1 }, /at \.f is a function/],
    ['a BigInt', [10n], /at \[0\] is a bigint/],
    ['NaN', { n: Number.NaN }, /at \.n is NaN/],
    ['Infinity', Number.POSITIVE_INFINITY, /is Infinity/],
    ['a symbol', { s: Symbol('s') }, /is a symbol/],
    [
      'a cycle',
      (() => {
        const a: Record<string, unknown> = {};
        a.self = { back: a };
        return a;
      })(),
      /at \.self\.back refers back to itself/,
    ],
    [
      'an array cycle',
      (() => {
        const a: unknown[] = [];
        a.push([a]);
        return a;
      })(),
      /at \[0\]\[0\] refers back to itself/,
    ],
  ])('refuses %s, saying where', (_what, value, message) => expect(plainJsonProblem(value)).toMatch(message));
});
