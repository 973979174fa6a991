import { encodeCanonical } from './canonical-cbor.js';
import { type CborValue, Dec128 } from './cbor-value.js';
import { compareDec128, parseDec128 } from './dec128.js';
import { type AirDiagnostic, diagnostic, pointer } from './diagnostic.js';

// The values an expression works on: failures with their JSON pointer, records, integers in range, orders and
// keys, and how a value is named in a diagnostic.

const INT_MIN = -(2n ** 63n);
const UINT_MAX = 2n ** 64n - 1n;

/** A failed evaluation: carries its diagnostic out of the recursion. */
export class ExprFailure {
  constructor(readonly diagnostic: AirDiagnostic) {}
}

/** Fails the evaluation at `path`. */
export function fail(code: string, message: string, path: string): never {
  throw new ExprFailure(diagnostic(code, message, path));
}

/** A plain record: an object that is not a list, bytes, a map or a dec128. */
export function isRecord(value: unknown): value is Readonly<Record<string, CborValue>> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Map) &&
    !(value instanceof Dec128) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

export function compareOrdered(a: CborValue, b: CborValue, op: string, path: string): number {
  const x = toInteger(a);
  const y = toInteger(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return codePointCompare(a, b);
  const da = a instanceof Dec128 ? a : x !== undefined ? parseDec128(x.toString()) : undefined;
  const db = b instanceof Dec128 ? b : y !== undefined ? parseDec128(y.toString()) : undefined;
  if (da !== undefined && db !== undefined) return compareDec128(da, db);
  return fail('expr.type', `"${op}" compares two numbers or two texts; found ${kindOf(a)} and ${kindOf(b)}`, pointer(path, 'args'));
}

function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length - y.length < 0 ? -1 : x.length > y.length ? 1 : 0;
}

export function toInteger(value: CborValue): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return undefined;
}

export function checkRange(n: bigint, path: string): CborValue {
  if (n < INT_MIN || n > UINT_MAX) fail('expr.overflow', `integer overflow: ${n} is outside ${INT_MIN}..${UINT_MAX}`, path);
  return Number.isSafeInteger(Number(n)) && BigInt(Number(n)) === n ? Number(n) : n;
}

export function keyOf(value: CborValue, path: string): string {
  try {
    return Array.from(encodeCanonical(value), (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return fail('expr.type', 'value cannot be compared', path);
  }
}

export function kindOf(value: CborValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'a bool';
  if (typeof value === 'number' || typeof value === 'bigint') return Number.isInteger(Number(value)) ? 'an integer' : 'a number';
  if (typeof value === 'string') return 'text';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Dec128) return 'a dec128';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Map) return 'a map';
  return 'a record';
}

export function describeKey(key: CborValue): string {
  return typeof key === 'string' ? `"${key}"` : typeof key === 'number' || typeof key === 'bigint' ? String(key) : kindOf(key);
}
