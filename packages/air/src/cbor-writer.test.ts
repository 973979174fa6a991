import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCanonical, encodeGeneral, encodePart, tryEncodePart } from './canonical-cbor.js';
import { MAX_CBOR_DEPTH } from './cbor-scan.js';
import { type CborValue, Dec128, Tagged } from './cbor-value.js';
import { withKnownEncodings, writeCanonical } from './cbor-writer.js';
import { cborValueArb } from './test-support/cbor-arbitrary.js';
import { toHex } from './test-support/vectors.js';

const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : toHex(bytes));

function nested(depth: number, leaf: CborValue): CborValue {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** What the encoder does with a value: its bytes, or the error code and message it throws. */
function outcome(encode: () => Uint8Array): string {
  try {
    return hex(encode())!;
  } catch (error) {
    return `${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
}

const shapedArb: fc.Arbitrary<CborValue> = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.constantFrom(0, 23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, -0),
    fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n - 1n }),
    fc.constantFrom(2n ** 53n, 2n ** 53n - 1n, -(2n ** 53n), 2n ** 64n - 1n, -(2n ** 64n), 2n ** 64n, -(2n ** 64n) - 1n),
    fc.string({ unit: 'grapheme' }),
    fc.string({ unit: 'binary' }),
    fc.string({ maxLength: 300 }),
    fc.uint8Array({ maxLength: 300 }),
    fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => new Dec128(b)),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 4 })), tie('value'), { maxKeys: 8 }),
  ),
})).value;

describe('the direct canonical writer', () => {
  it('writes exactly what the general encoder writes, for every value it takes', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof(shapedArb, cborValueArb), (value) => {
        const written = writeCanonical(value);
        const general = outcome(() => encodeGeneral(value, 0, ''));
        if (written !== undefined) {
          taken++;
          expect(hex(written)).toBe(general);
        }
        expect(outcome(() => encodeCanonical(value))).toBe(general);
      }),
      { numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(1000);
  });

  it('takes the common shapes of journal entries and intents', () => {
    const entry = {
      seq: 70_000,
      kind: 'ReceiptAppended',
      body: {
        intent_hash: `sha256:${'ab'.repeat(32)}`,
        size: 2n ** 40n,
        ok: true,
        none: null,
        sig: new Uint8Array(32),
        list: [1, -1, 'é'],
      },
      prev: null,
    };
    expect(hex(writeCanonical(entry))).toBe(hex(encodeGeneral(entry, 0, '')));
    expect(writeCanonical(new Dec128(new Uint8Array(16)))).toBeDefined();
  });

  it('declines floats, bignums, tags, maps and non-ASCII keys, and the general encoder decides them', () => {
    for (const value of [
      1.5,
      2 ** 60,
      2n ** 64n,
      -(2n ** 64n) - 1n,
      new Tagged(1, 0),
      new Map([[1, 2]]),
      { é: 1 },
      ['\ud800'],
    ] as CborValue[])
      expect(writeCanonical(value)).toBeUndefined();
  });

  it('declines every value the profile refuses, so the errors stay the general encoder’s', () => {
    class Point {
      x = 1;
    }
    for (const value of [
      { a: undefined },
      [undefined],
      'lone \udc00',
      Number.NaN,
      Number.POSITIVE_INFINITY,
      new Point(),
      new Int8Array(2),
      nested(MAX_CBOR_DEPTH + 1, 0),
    ] as unknown as CborValue[]) {
      expect(writeCanonical(value)).toBeUndefined();
      expect(() => encodeCanonical(value)).toThrow(expect.objectContaining({ code: 'AIR_VALUE_UNENCODABLE' }));
    }
    expect(hex(writeCanonical(nested(MAX_CBOR_DEPTH, 0)))).toBe(hex(encodeGeneral(nested(MAX_CBOR_DEPTH, 0), 0, '')));
  });

  it('checks nesting from the depth a part sits at', () => {
    const deep = nested(MAX_CBOR_DEPTH - 1, 0);
    expect(tryEncodePart(deep, 1)).toBeDefined();
    expect(tryEncodePart(deep, 2)).toBeUndefined();
    expect(() => encodePart(deep, 2, '/body')).toThrow(/cannot encode \/body\/0/);
  });

  it('copies a known encoding at its depth or shallower, and encodes it afresh deeper down', () => {
    const payload = { path: 'src/a.ts', size: 3 };
    const part = encodePart(payload, 2, '');
    const wrong = { bytes: Uint8Array.of(0xf6), depth: 2 };
    withKnownEncodings([[payload, part]], () => {
      expect(hex(encodeCanonical({ receipt: payload }))).toBe(hex(encodeGeneral({ receipt: payload }, 0, '')));
    });
    withKnownEncodings([[payload, wrong]], () => {
      expect(hex(encodeCanonical(payload))).toBe('f6');
      expect(hex(encodeCanonical([[payload]]))).toBe('8181f6');
      expect(hex(encodeCanonical([[[payload]]]))).toBe(hex(encodeGeneral([[[payload]]], 0, '')));
    });
    expect(hex(encodeCanonical(payload))).toBe(hex(encodeGeneral(payload, 0, '')));
  });

  it('leaves a value encoded inside a getter to the general encoder, and encodes the outer value whole', () => {
    const inner = { b: 2 };
    const outer = {
      get a(): CborValue {
        return hex(encodeCanonical(inner))!;
      },
    };
    expect(hex(encodeCanonical(outer as unknown as CborValue))).toBe(hex(encodeGeneral({ a: hex(encodeGeneral(inner, 0, ''))! }, 0, '')));
  });

  it('grows past its buffer for large values', () => {
    const large = { content: 'x'.repeat(600_000), bytes: new Uint8Array(600_000).fill(7) };
    expect(hex(encodeCanonical(large))).toBe(hex(encodeGeneral(large, 0, '')));
    expect(hex(encodeCanonical({ a: 1 }))).toBe('a1616101');
  });
});
