import fc from 'fast-check';
import { type CborValue, Dec128, Tagged } from '../cbor-value.js';

/** Any value of Cairn's CBOR data model, nested a few levels deep, for property tests. */
export const cborValueArb: fc.Arbitrary<CborValue> = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
    fc.maxSafeInteger(),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n - 1n }).filter((b) => b < -(2n ** 53n) || b > 2n ** 53n),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isSafeInteger(d)),
    fc.string({ unit: 'grapheme' }),
    fc.uint8Array({ maxLength: 20 }),
    fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => new Dec128(b)),
    fc.array(tie('value'), { maxLength: 5 }),
    fc
      .tuple(
        fc.integer({ min: 0, max: 100_000 }).filter((t) => t !== 2 && t !== 3 && t !== 2000),
        tie('value'),
      )
      .map(([tag, v]) => new Tagged(tag, v)),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 5 }),
    fc
      .uniqueArray(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 5 })
      .chain((keys) =>
        fc.tuple(...keys.map(() => tie('value'))).map((values) => new Map<CborValue, CborValue>(keys.map((k, i) => [k, values[i]!]))),
      ),
  ),
})).value;
