import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical } from './canonical-cbor.js';
import { type CborValue, Dec128 } from './cbor-value.js';
import { isAirError } from './errors.js';
import { decodeNode, encodeNode } from './node-hash.js';
import { cborValueArb as valueArb } from './test-support/cbor-arbitrary.js';
import { fromHex, toHex } from './test-support/vectors.js';

describe('canonical CBOR', () => {
  it('decode(encode(v)) gives v back, for every value', () => {
    fc.assert(
      fc.property(valueArb, (value) => {
        const bytes = encodeCanonical(value);
        expect(decodeCanonical(bytes)).toEqual(value);
        expect(encodeCanonical(decodeCanonical(bytes))).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it('map key order in the input does not change the bytes', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.integer()), fc.integer(), (dict, seed) => {
        const entries = Object.entries(dict);
        const shuffled = entries
          .map((e, i) => [((i * 7919 + seed) >>> 0) % 1000, e] as const)
          .sort((a, b) => a[0] - b[0])
          .map(([, e]) => e);
        expect(encodeCanonical(Object.fromEntries(shuffled))).toEqual(encodeCanonical(dict));
      }),
    );
  });

  it('orders keys by their encoded bytes: shorter text first, integers by encoding', () => {
    expect(toHex(encodeCanonical({ aa: 1, b: 2, a: 3 }))).toBe('a361610361620262616101');
    expect(
      toHex(
        encodeCanonical(
          new Map<CborValue, CborValue>([
            [-1, 'n'],
            [100, 'h'],
            [10, 't'],
          ]),
        ),
      ),
    ).toBe('a30a61741864616820616e');
  });

  it('dec128 is tag 2000 over 16 bytes; big integers are bigints', () => {
    const dec = new Dec128(new Uint8Array(16).fill(1));
    expect(toHex(encodeCanonical(dec))).toBe('d907d050' + '01'.repeat(16));
    expect(decodeCanonical(encodeCanonical(dec))).toEqual(dec);
    expect(decodeCanonical(fromHex('1b0020000000000001'))).toBe(2n ** 53n + 1n);
    expect(toHex(encodeCanonical(2n ** 53n + 1n))).toBe('1b0020000000000001');
    expect(decodeCanonical(fromHex('1a000f4240'))).toBe(1_000_000);
  });

  it.each([
    ['indefinite-length array', '9f01ff', 'AIR_CBOR_UNSUPPORTED'],
    ['indefinite-length text', '7f6161ff', 'AIR_CBOR_UNSUPPORTED'],
    ['duplicate keys', 'a2616101616102', 'AIR_CBOR_DUPLICATE_KEY'],
    ['keys out of order', 'a2616202616101', 'AIR_CBOR_NOT_CANONICAL'],
    ['a non-shortest integer', '1817', 'AIR_CBOR_NOT_CANONICAL'],
    ['a non-shortest length', '5801ff', 'AIR_CBOR_NOT_CANONICAL'],
    ['a float wider than needed', 'fa3fc00000', 'AIR_CBOR_NOT_CANONICAL'],
    ['NaN', 'f97e00', 'AIR_CBOR_UNSUPPORTED'],
    ['infinity', 'fb7ff0000000000000', 'AIR_CBOR_UNSUPPORTED'],
    ['undefined', 'f7', 'AIR_CBOR_UNSUPPORTED'],
    ['ill-formed UTF-8', '62c328', 'AIR_CBOR_INVALID_UTF8'],
    ['an overlong UTF-8 form', '62c0af', 'AIR_CBOR_INVALID_UTF8'],
    ['a lone surrogate in UTF-8', '63eda080', 'AIR_CBOR_INVALID_UTF8'],
    ['a truncated item', '1a0001', 'AIR_CBOR_MALFORMED'],
    ['a string longer than the input', '5bffffffffffffffff00', 'AIR_CBOR_MALFORMED'],
    ['an array longer than the input', '9bffffffffffffffff', 'AIR_CBOR_MALFORMED'],
    ['bytes after the item', '0000', 'AIR_CBOR_MALFORMED'],
    ['a reserved additional information', '1c', 'AIR_CBOR_MALFORMED'],
    ['a stray break', 'ff', 'AIR_CBOR_MALFORMED'],
    ['a bignum that fits in 64 bits', 'c24101', 'AIR_CBOR_NOT_CANONICAL'],
    ['dec128 with the wrong size', 'd907d04101', 'AIR_CBOR_MALFORMED'],
    ['empty input', '', 'AIR_CBOR_MALFORMED'],
  ])('refuses %s', (_what, hex, code) => {
    expect(() => decodeCanonical(fromHex(hex))).toThrow(expect.objectContaining({ code }));
  });

  it('refuses nesting deeper than the limit, however deep, without exhausting the stack', () => {
    expect(decodeCanonical(fromHex('81'.repeat(127) + '00'))).toBeDefined();
    expect(() => decodeCanonical(fromHex('81'.repeat(129) + '00'))).toThrow(expect.objectContaining({ code: 'AIR_CBOR_TOO_DEEP' }));
    const huge = new Uint8Array(1_000_001).fill(0x81);
    huge[huge.length - 1] = 0;
    expect(() => decodeCanonical(huge)).toThrow(expect.objectContaining({ code: 'AIR_CBOR_TOO_DEEP' }));
    expect(() => decodeCanonical(new Uint8Array(100_000).fill(0xa1))).toThrow(expect.objectContaining({ code: 'AIR_CBOR_TOO_DEEP' }));
  });

  it('never throws anything but an AirError, on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          const value = decodeCanonical(bytes);
          expect(encodeCanonical(value)).toEqual(bytes);
        } catch (error) {
          expect(isAirError(error), String(error)).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('mutating a canonical encoding gives the same value back or a clean refusal', () => {
    fc.assert(
      fc.property(valueArb, fc.nat(), fc.integer({ min: 0, max: 255 }), (value, at, byte) => {
        const bytes = encodeCanonical(value).slice();
        bytes[at % bytes.length] = byte;
        try {
          expect(encodeCanonical(decodeCanonical(bytes))).toEqual(bytes);
        } catch (error) {
          expect(isAirError(error), String(error)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['undefined', undefined],
    ['NaN', Number.NaN],
    ['an infinity', -Infinity],
    ['a lone surrogate', 'a\ud800b'],
    ['a Date', new Date(0)],
    ['a function', () => 1],
    ['an undefined field', { a: undefined }],
    ['a map with an array key', new Map([[[1], 2]])],
  ])('refuses to encode %s', (_what, value) => {
    expect(() => encodeCanonical(value as CborValue)).toThrow(expect.objectContaining({ code: 'AIR_VALUE_UNENCODABLE' }));
  });

  it('refuses to encode a cycle or nesting deeper than the decoder accepts', () => {
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(() => encodeCanonical(cycle as CborValue)).toThrow(expect.objectContaining({ code: 'AIR_VALUE_UNENCODABLE' }));
  });

  it('keeps "__proto__" as an ordinary key', () => {
    const decoded = decodeCanonical(fromHex('a1695f5f70726f746f5f5fa0')) as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('node bytes carry the self-describe tag, and a node without it is refused', () => {
    expect(toHex(encodeNode({}))).toBe('d9d9f7a0');
    expect(decodeNode(fromHex('d9d9f7a0'))).toEqual({});
    expect(() => decodeNode(fromHex('a0'))).toThrow(expect.objectContaining({ code: 'AIR_NODE_UNTAGGED' }));
  });
});
