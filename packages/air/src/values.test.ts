import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCanonical } from './canonical-cbor.js';
import { Dec128 } from './cbor-value.js';
import { compareDec128, formatDec128, parseDec128 } from './dec128.js';
import { toHex } from './test-support/vectors.js';
import { type AirType, parseType, schemaHash } from './types.js';
import { checkValue, encodeTypedValue, hashTypedValue } from './values.js';

const t = (json: unknown): AirType => {
  const parsed = parseType(json);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
  return parsed.value;
};

describe('dec128', () => {
  it('encodes decimal strings as normalised BID decimal128', () => {
    expect(toHex(parseDec128('1')!.bytes)).toBe('30400000000000000000000000000001');
    expect(toHex(parseDec128('0.2')!.bytes)).toBe('303e0000000000000000000000000002');
    expect(toHex(parseDec128('0.20')!.bytes)).toBe(toHex(parseDec128('0.2')!.bytes));
    expect(toHex(parseDec128('-0')!.bytes)).toBe(toHex(parseDec128('0')!.bytes));
    expect(formatDec128(parseDec128('-12.5e3')!)).toBe('-12500');
    expect(formatDec128(parseDec128('0.002')!)).toBe('0.002');
    expect(parseDec128('1'.repeat(35))).toBeUndefined();
    expect(parseDec128('1e7000')).toBeUndefined();
    expect(parseDec128('abc')).toBeUndefined();
    expect(toHex(encodeCanonical(parseDec128('0.2')!))).toBe('d907d050303e0000000000000000000000000002');
  });

  it('formats and parses back to the same value; comparison follows the numbers', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: -30, max: 30 }), (coefficient, exponent) => {
        const text = `${coefficient}e${exponent}`;
        const dec = parseDec128(text)!;
        expect(formatDec128(dec)).toBeDefined();
        expect(parseDec128(formatDec128(dec)!)).toEqual(dec);
        expect(compareDec128(dec, parseDec128('0')!)).toBe(coefficient === 0n ? 0 : coefficient > 0n ? 1 : -1);
      }),
    );
  });
});

describe('typed values', () => {
  const fetchParams = t({
    record: {
      method: { text: {} },
      url: { text: {} },
      headers: { map: { key: { text: {} }, value: { text: {} } } },
      body_ref: { option: { hash: {} } },
    },
  });

  it('checks and encodes a record, leaving out none option fields', () => {
    const result = encodeTypedValue({ method: 'GET', url: 'https://x', headers: { accept: 'text/html' } }, fetchParams);
    expect(result).toEqual({ ok: true, value: { method: 'GET', url: 'https://x', headers: { accept: 'text/html' } } });
    const withNull = encodeTypedValue({ method: 'GET', url: 'https://x', headers: {}, body_ref: null }, fetchParams);
    expect(withNull.ok && withNull.value).toEqual({ method: 'GET', url: 'https://x', headers: {} });
    const withHash = encodeTypedValue({ method: 'GET', url: 'u', headers: {}, body_ref: 'sha256:' + 'ab'.repeat(32) }, fetchParams);
    expect(withHash.ok && (withHash.value as { body_ref: Uint8Array }).body_ref).toEqual(new Uint8Array(32).fill(0xab));
  });

  it('reports every mismatch with its JSON pointer', () => {
    expect(checkValue({ method: 7, headers: { a: 1 }, extra: true }, fetchParams, '/params')).toEqual([
      { code: 'value.type', message: 'expected text, found number 7', path: '/params/method' },
      { code: 'value.missing-field', message: 'required field "url" is missing', path: '/params/url' },
      { code: 'value.type', message: 'expected text, found number 1', path: '/params/headers/a' },
      { code: 'value.unknown-field', message: 'field "extra" is not in the record type', path: '/params/extra' },
    ]);
  });

  it.each([
    [{ nat: {} }, -1, 'value.range', 'nat out of range: -1 is not within 0..18446744073709551615'],
    [{ nat: {} }, 1.5, 'value.type', 'expected an integer (nat), found number 1.5'],
    [
      { int: {} },
      '9223372036854775808',
      'value.range',
      'int out of range: 9223372036854775808 is not within -9223372036854775808..9223372036854775807',
    ],
    [{ dec128: {} }, 0.2, 'value.type', 'expected a decimal string for dec128 (such as "0.2"), within 34 digits, found number 0.2'],
    [{ hash: {} }, 'sha256:xyz', 'value.type', 'expected a hash "sha256:<64 hex digits>", found the string "sha256:xyz"'],
    [{ uuid: {} }, 'not-a-uuid', 'value.type', 'expected a lowercase UUID, found the string "not-a-uuid"'],
    [{ bytes: {} }, 'not base64!', 'value.type', 'expected bytes as a base64 string, found the string "not base64!"'],
    [{ unit: {} }, null, 'value.type', 'expected unit ({}), found null'],
    [{ set: { nat: {} } }, [1, 2, 1], 'value.set-duplicate', 'a set holds each element once; this element is repeated'],
    [
      { variant: { Ok: { unit: {} }, Err: { text: {} } } },
      { $tag: 'Maybe' },
      'value.variant-tag',
      '"Maybe" is not an alternative; expected one of Ok, Err',
    ],
    [
      { variant: { Ok: { unit: {} }, Err: { text: {} } } },
      { $tag: 'Err' },
      'value.missing-field',
      'alternative "Err" carries a value: add "$value"',
    ],
    [
      { map: { key: { nat: {} }, value: { text: {} } } },
      [
        [1, 'a'],
        [1, 'b'],
      ],
      'value.map-duplicate',
      'this key appears twice in the map',
    ],
  ])('%j refuses %j', (type, value, code, message) => {
    expect(checkValue(value, t(type))).toContainEqual(expect.objectContaining({ code, message }));
  });

  it('encodes big integers, dec128, time, sets in canonical order, non-text map keys, variants', () => {
    const type = t({
      record: {
        big: { nat: {} },
        price: { dec128: {} },
        at: { time: {} },
        tags: { set: { text: {} } },
        byId: { map: { key: { nat: {} }, value: { text: {} } } },
        status: { variant: { Ok: { unit: {} }, Err: { text: {} } } },
      },
    });
    const result = encodeTypedValue(
      {
        big: '18446744073709551615',
        price: '19.99',
        at: 1_700_000_000_000_000_000n,
        tags: ['bb', 'a', 'c'],
        byId: [
          [10, 'x'],
          [2, 'y'],
        ],
        status: { $tag: 'Ok' },
      },
      type,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const v = result.value as Record<string, unknown>;
    expect(v.big).toBe(18446744073709551615n);
    expect(v.price).toBeInstanceOf(Dec128);
    expect(v.tags).toEqual(['a', 'c', 'bb']);
    expect(v.byId).toEqual(
      new Map([
        [10, 'x'],
        [2, 'y'],
      ]),
    );
    expect(v.status).toEqual({ $tag: 'Ok', $value: {} });
  });

  it('encoding is idempotent: a canonical value encodes to itself', () => {
    const type = t({
      record: { h: { hash: {} }, u: { uuid: {} }, m: { map: { key: { nat: {} }, value: { dec128: {} } } }, n: { nat: {} } },
    });
    const once = encodeTypedValue(
      { h: 'sha256:' + 'ab'.repeat(32), u: '123e4567-e89b-12d3-a456-426614174000', m: [[1, '2.5']], n: '18446744073709551615' },
      type,
    );
    expect(once.ok).toBe(true);
    if (once.ok) expect(encodeTypedValue(once.value, type)).toEqual(once);
  });

  it('a bound value hash commits to its schema', () => {
    const a = t({ record: { x: { int: {} } } });
    const b = t({ record: { x: { nat: {} } } });
    const ha = hashTypedValue({ x: 1 }, a, schemaHash(a));
    const hb = hashTypedValue({ x: 1 }, b, schemaHash(b));
    expect(ha.ok && hb.ok && ha.value !== hb.value).toBe(true);
  });
});
