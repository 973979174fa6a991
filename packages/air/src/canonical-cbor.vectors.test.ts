import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { isAirError } from './errors.js';
import { decodeNode, encodeNode, hashNode } from './node-hash.js';
import { fromHex, readVectors, toHex } from './test-support/vectors.js';

interface AirVector {
  label: string;
  json: CborValue;
  cbor_hex: string;
  hash: string;
}

interface AppendixExample {
  hex: string;
  roundtrip: boolean;
  decoded?: unknown;
  diagnostic?: string;
}

describe('AIR reference vectors', () => {
  const files = ['air/canonical-cbor.json', 'air/schemas.json', 'air/plans.json'];
  const vectors = files.flatMap((file) => readVectors<AirVector[]>(file).map((v) => [file, v] as const));

  it('has vectors to check', () => expect(vectors.length).toBeGreaterThanOrEqual(5));

  it.each(vectors.map(([file, v]) => [`${file} ${v.label}`, v] as const))('%s: bytes and hash match', (_name, vector) => {
    expect(toHex(encodeNode(vector.json))).toBe(vector.cbor_hex);
    expect(hashNode(vector.json)).toBe(vector.hash);
    expect(decodeNode(fromHex(vector.cbor_hex))).toEqual(vector.json);
  });
});

/**
 * RFC 8949 Appendix A. Every example that is well-formed and in canonical form in Cairn's profile must
 * decode to the listed value and re-encode to the same bytes. The rest must be refused with the reason
 * given here: the profile has no NaN, infinities, undefined or simple values; JavaScript has one number
 * type, so a float that holds a safe integer is not canonical (its canonical form is the integer);
 * non-preferred float widths and indefinite lengths are not canonical; `f818` is not well-formed.
 */
const OUTSIDE_PROFILE: Record<string, string> = {
  f90000: 'AIR_CBOR_NOT_CANONICAL', // 0.0 is the integer 0
  f98000: 'AIR_CBOR_NOT_CANONICAL', // -0.0 reduces to the integer 0
  f93c00: 'AIR_CBOR_NOT_CANONICAL', // 1.0
  fb3ff199999999999a: '', // 1.1 is canonical
  f93e00: '', // 1.5 is canonical
  f97bff: 'AIR_CBOR_NOT_CANONICAL', // 65504.0
  fa47c35000: 'AIR_CBOR_NOT_CANONICAL', // 100000.0
  fa7f7fffff: '', // 3.4028234663852886e+38: integral, but beyond 2^53, so it stays a float
  fb7e37e43c8800759c: '', // 1.0e+300: likewise
  f90001: '', // 5.960464477539063e-8
  f90400: '', // 0.00006103515625
  f9c400: 'AIR_CBOR_NOT_CANONICAL', // -4.0
  fbc010666666666666: '', // -4.1
  f97c00: 'AIR_CBOR_UNSUPPORTED',
  f97e00: 'AIR_CBOR_UNSUPPORTED',
  f9fc00: 'AIR_CBOR_UNSUPPORTED',
  fa7f800000: 'AIR_CBOR_UNSUPPORTED',
  fa7fc00000: 'AIR_CBOR_UNSUPPORTED',
  faff800000: 'AIR_CBOR_UNSUPPORTED',
  fb7ff0000000000000: 'AIR_CBOR_UNSUPPORTED',
  fb7ff8000000000000: 'AIR_CBOR_UNSUPPORTED',
  fbfff0000000000000: 'AIR_CBOR_UNSUPPORTED',
  f7: 'AIR_CBOR_UNSUPPORTED', // undefined
  f0: 'AIR_CBOR_UNSUPPORTED', // simple(16)
  f818: 'AIR_CBOR_MALFORMED', // not well-formed under RFC 8949
  f8ff: 'AIR_CBOR_UNSUPPORTED', // simple(255)
};

describe('RFC 8949 Appendix A', () => {
  const examples = readVectors<AppendixExample[]>('rfc8949-appendix-a.json');

  it('has all 82 examples', () => expect(examples.length).toBe(82));

  it.each(examples.map((e) => [e.hex, e] as const))('%s', (hex, example) => {
    const expectedRefusal = OUTSIDE_PROFILE[hex];
    const indefinite = /5f|7f|9f|bf/.test(hex.slice(0, 2)) || (!example.roundtrip && expectedRefusal === undefined);
    if (expectedRefusal) {
      expect(() => decodeCanonical(fromHex(hex))).toThrow(expect.objectContaining({ code: expectedRefusal }));
      return;
    }
    if (indefinite) {
      let error: unknown;
      try {
        decodeCanonical(fromHex(hex));
      } catch (e) {
        error = e;
      }
      expect(isAirError(error), `${hex} should be refused`).toBe(true);
      expect(['AIR_CBOR_UNSUPPORTED', 'AIR_CBOR_NOT_CANONICAL']).toContain((error as { code: string }).code);
      return;
    }
    const value = decodeCanonical(fromHex(hex));
    expect(toHex(encodeCanonical(value))).toBe(hex);
    if ('decoded' in example && typeof example.decoded !== 'number') expect(toPlain(value)).toEqual(example.decoded);
    if (typeof example.decoded === 'number') expect(Number(value)).toBe(example.decoded);
  });
});

function toPlain(value: CborValue): unknown {
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toPlain(v)]));
  if (typeof value === 'object' && value !== null && value.constructor === Object)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  return value;
}
