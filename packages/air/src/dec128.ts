import { Dec128 } from './cbor-value.js';

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
const MAX_COEFFICIENT = 10n ** 34n;
const BIAS = 6176;
const MIN_EXPONENT = -6176;
const MAX_EXPONENT = 6111;

/**
 * Parses a decimal string (`0.2`, `-1.5e10`) into IEEE 754 decimal128 (binary integer decimal, big-endian).
 * The value is normalised — trailing zeros of the coefficient move into the exponent, zero has exponent 0 —
 * so numerically equal decimals have one encoding. Undefined when the text is not a decimal or does not
 * fit in 34 digits and the exponent range.
 */
export function parseDec128(text: string): Dec128 | undefined {
  const match = DECIMAL.exec(text);
  if (match === null) return undefined;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  let coefficient = BigInt(whole! + fraction);
  let exponent = Number(exponentText) - fraction.length;
  if (!Number.isSafeInteger(exponent)) return undefined;
  if (coefficient === 0n) exponent = 0;
  while (coefficient !== 0n && coefficient % 10n === 0n) {
    coefficient /= 10n;
    exponent++;
  }
  while (exponent > MAX_EXPONENT && coefficient * 10n < MAX_COEFFICIENT) {
    coefficient *= 10n;
    exponent--;
  }
  if (coefficient >= MAX_COEFFICIENT || exponent < MIN_EXPONENT || exponent > MAX_EXPONENT) return undefined;
  let bits = (sign === '-' && coefficient !== 0n ? 1n : 0n) << 127n;
  bits |= BigInt(exponent + BIAS) << 113n;
  bits |= coefficient;
  const bytes = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    bytes[i] = Number(bits & 0xffn);
    bits >>= 8n;
  }
  return new Dec128(bytes);
}

/** The normalised decimal string of a decimal128 (`2E-1` style avoided: plain digits with a point). Undefined for NaN, infinities and non-canonical encodings. */
export function formatDec128(value: Dec128): string | undefined {
  let bits = 0n;
  for (const byte of value.bytes) bits = (bits << 8n) | BigInt(byte);
  const negative = bits >> 127n === 1n;
  if (((bits >> 125n) & 3n) === 3n) return undefined;
  const exponent = Number((bits >> 113n) & 0x3fffn) - BIAS;
  const coefficient = bits & ((1n << 113n) - 1n);
  if (coefficient >= MAX_COEFFICIENT) return undefined;
  const digits = coefficient.toString();
  let text: string;
  if (exponent >= 0) text = exponent > 20 ? `${digits}e${exponent}` : digits + '0'.repeat(exponent);
  else if (-exponent < digits.length) text = `${digits.slice(0, exponent)}.${digits.slice(exponent)}`;
  else if (-exponent - digits.length > 20) text = `${digits}e${exponent}`;
  else text = `0.${'0'.repeat(-exponent - digits.length)}${digits}`;
  return negative ? `-${text}` : text;
}

/** Compares two decimal128 values numerically (both must be finite). */
export function compareDec128(a: Dec128, b: Dec128): number {
  const [sa, ca, ea] = parts(a);
  const [sb, cb, eb] = parts(b);
  const va = sa * ca;
  const vb = sb * cb;
  const e = Math.min(ea, eb);
  const x = va * 10n ** BigInt(ea - e);
  const y = vb * 10n ** BigInt(eb - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

function parts(value: Dec128): [bigint, bigint, number] {
  let bits = 0n;
  for (const byte of value.bytes) bits = (bits << 8n) | BigInt(byte);
  return [bits >> 127n === 1n ? -1n : 1n, bits & ((1n << 113n) - 1n), Number((bits >> 113n) & 0x3fffn) - BIAS];
}
