import { decode as cbor2Decode, encode as cbor2Encode, cdeDecodeOptions, Tag } from 'cbor2';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical } from './canonical-cbor.js';
import { type CborValue, Dec128, Tagged } from './cbor-value.js';
import { cborValueArb } from './test-support/cbor-arbitrary.js';
import { toHex } from './test-support/vectors.js';

/**
 * Cairn's encoder against cbor2, an implementation written separately (by another author, on another code
 * base), in its RFC 8949 common deterministic encoding mode with -0 folded to 0. Both must give the same bytes
 * for every value, and each must read back what the other wrote.
 */

/** The same value in cbor2's terms: tags are cbor2 `Tag`s; everything else maps across as it is. */
function toCbor2(value: CborValue): unknown {
  if (value instanceof Dec128) return new Tag(2000, value.bytes);
  if (value instanceof Tagged) return new Tag(value.tag as number, toCbor2(value.value));
  if (value instanceof Uint8Array || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toCbor2);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, toCbor2(v)]));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCbor2(v)]));
}

/** The value with each general tag replaced by its content: cbor2's reader gives meaning to tags 0, 1, 21… */
function withoutTags(value: CborValue): CborValue {
  if (value instanceof Tagged) return withoutTags(value.value);
  if (value instanceof Uint8Array || value instanceof Dec128 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withoutTags);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, withoutTags(v)]));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutTags(v)]));
}

function encodeWithCbor2(value: CborValue): Uint8Array {
  return cbor2Encode(toCbor2(value), { cde: true, simplifyNegativeZero: true });
}

/** Maps whose keys mix the three key kinds, the case where ordering by encoded bytes matters most. */
const mixedKeyMapArb: fc.Arbitrary<CborValue> = fc
  .uniqueArray(
    fc.oneof(
      fc.integer({ min: -70_000, max: 70_000 }),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n - 1n }).filter((b) => b < -(2n ** 53n) || b > 2n ** 53n),
      fc.string({ maxLength: 30 }),
      fc.uint8Array({ maxLength: 30 }),
    ),
    { minLength: 1, maxLength: 12, selector: (k) => (k instanceof Uint8Array ? `b${toHex(k)}` : `${typeof k}:${String(k)}`) },
  )
  .chain((keys) =>
    fc.tuple(...keys.map(() => cborValueArb)).map((values) => new Map<CborValue, CborValue>(keys.map((k, i) => [k, values[i]!]))),
  );

const floatArb: fc.Arbitrary<CborValue> = fc
  .oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.float({ noNaN: true, noDefaultInfinity: true }).map(Number),
    fc.integer({ min: -65504, max: 65504 }).map((n) => n / 1024),
    fc.constantFrom(5e-324, 2 ** -24, 2 ** -14, 65504.5, 2 ** 53 + 2, -(2 ** 60), 1e300),
  )
  .filter((d) => !Number.isSafeInteger(d));

describe('canonical CBOR against an independent implementation (cbor2)', () => {
  it('gives the same bytes for every value', () => {
    fc.assert(
      fc.property(fc.oneof(cborValueArb, mixedKeyMapArb, floatArb), (value) => {
        expect(toHex(encodeCanonical(value))).toBe(toHex(encodeWithCbor2(value)));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same bytes for integers at every width boundary', () => {
    const edges = [0, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER];
    const values: CborValue[] = [
      ...edges,
      ...edges.map((n) => -n - 1),
      2n ** 64n - 1n,
      -(2n ** 64n),
      2n ** 64n,
      -(2n ** 64n) - 1n,
      2n ** 200n,
    ];
    for (const value of values) expect(toHex(encodeCanonical(value)), String(value)).toBe(toHex(encodeWithCbor2(value)));
  });

  it('reads what cbor2 writes, and cbor2 in its strict deterministic mode reads what Cairn writes', () => {
    fc.assert(
      fc.property(fc.oneof(cborValueArb, mixedKeyMapArb, floatArb), (value) => {
        const ours = encodeCanonical(value);
        expect(decodeCanonical(encodeWithCbor2(value))).toEqual(decodeCanonical(ours));
        const untagged = encodeCanonical(withoutTags(value));
        expect(() => cbor2Decode(untagged, { ...cdeDecodeOptions, preferMap: true })).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });
});
