import { MAX_CBOR_DEPTH } from './cbor-scan.js';
import { type CborValue, Dec128 } from './cbor-value.js';

/**
 * The direct writer behind `encodeCanonical`: the shapes nearly every AIR value is made of (null, booleans, safe
 * integers, bigints within 64 bits, text, bytes, dec128, arrays and plain objects with ASCII keys) are written
 * straight into one growing buffer, in RFC 8949 core deterministic encoding. Anything else — floats, bignums,
 * other tags, `Map`s, non-ASCII keys, and every value that cannot be encoded — is declined (`undefined`), and
 * the caller takes the general encoder, which decides those cases (and words their errors) as it always has.
 */

/** A value's canonical bytes, checked at a nesting depth: they stand for the value there and at any shallower depth. */
export interface EncodedPart {
  readonly bytes: Uint8Array;
  readonly depth: number;
}

const known: { value: object; part: EncodedPart }[] = [];

/**
 * Runs `fn` with the encodings of some values known: while it runs, encoding one of them again (alone or inside
 * another value, at its depth or a shallower one) copies its bytes. The values must not change while `fn` runs.
 */
export function withKnownEncodings<T>(parts: readonly (readonly [CborValue, EncodedPart | undefined])[], fn: () => T): T {
  const mark = known.length;
  for (const [value, part] of parts) if (part !== undefined && typeof value === 'object' && value !== null) known.push({ value, part });
  try {
    return fn();
  } finally {
    known.length = mark;
  }
}

function knownBytes(value: object, depth: number): Uint8Array | undefined {
  for (let i = known.length - 1; i >= 0; i--) {
    const entry = known[i]!;
    if (entry.value === value && entry.part.depth >= depth) return entry.part.bytes;
  }
  return undefined;
}

const SMALL = 8192;
let buf = new Uint8Array(SMALL);
let pos = 0;
let active = false;

/**
 * The canonical encoding of `value` sitting at nesting `depth` (after `prefix`, when given), or undefined when the
 * general encoder must decide it.
 */
export function writeCanonical(value: CborValue, depth = 0, prefix?: Uint8Array): Uint8Array | undefined {
  if (active) return undefined;
  active = true;
  pos = 0;
  try {
    if (prefix !== undefined) putBytes(prefix);
    return writeValue(value, depth) ? buf.slice(0, pos) : undefined;
  } catch {
    return undefined;
  } finally {
    active = false;
    if (buf.length > 1 << 20) buf = new Uint8Array(SMALL);
  }
}

function reserve(n: number): void {
  if (pos + n <= buf.length) return;
  let size = buf.length * 2;
  while (size < pos + n) size *= 2;
  const next = new Uint8Array(size);
  next.set(buf.subarray(0, pos));
  buf = next;
}

function putBytes(bytes: Uint8Array): void {
  reserve(bytes.length);
  buf.set(bytes, pos);
  pos += bytes.length;
}

/** A head: major type and a non-negative safe integer argument, in its shortest form. */
function head(major: number, n: number): void {
  reserve(9);
  const top = major << 5;
  if (n < 24) buf[pos++] = top | n;
  else if (n < 0x100) {
    buf[pos++] = top | 24;
    buf[pos++] = n;
  } else if (n < 0x10000) {
    buf[pos++] = top | 25;
    buf[pos++] = n >>> 8;
    buf[pos++] = n & 0xff;
  } else if (n < 0x1_0000_0000) {
    buf[pos++] = top | 26;
    put32(n);
  } else {
    buf[pos++] = top | 27;
    put32(Math.floor(n / 0x1_0000_0000));
    put32(n >>> 0);
  }
}

function put32(n: number): void {
  buf[pos++] = n >>> 24;
  buf[pos++] = (n >>> 16) & 0xff;
  buf[pos++] = (n >>> 8) & 0xff;
  buf[pos++] = n & 0xff;
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function bigHead(major: number, n: bigint): void {
  if (n <= SAFE) {
    head(major, Number(n));
    return;
  }
  reserve(9);
  buf[pos++] = (major << 5) | 27;
  put32(Number(n >> 32n));
  put32(Number(n & 0xffff_ffffn));
}

function writeValue(value: unknown, depth: number): boolean {
  if (depth > MAX_CBOR_DEPTH) return false;
  switch (typeof value) {
    case 'string':
      return writeText(value);
    case 'number':
      if (!Number.isSafeInteger(value)) return false;
      if (value >= 0) head(0, value);
      else head(1, -1 - value);
      return true;
    case 'boolean':
      reserve(1);
      buf[pos++] = value ? 0xf5 : 0xf4;
      return true;
    case 'bigint':
      if (value >= 0n) {
        if (value > U64_MAX) return false;
        bigHead(0, value);
      } else {
        if (value < -U64_MAX - 1n) return false;
        bigHead(1, -1n - value);
      }
      return true;
    case 'object':
      return writeObject(value, depth);
    default:
      return false;
  }
}

function writeObject(value: object | null, depth: number): boolean {
  if (value === null) {
    reserve(1);
    buf[pos++] = 0xf6;
    return true;
  }
  if (known.length > 0) {
    const bytes = knownBytes(value, depth);
    if (bytes !== undefined) {
      putBytes(bytes);
      return true;
    }
  }
  if (Array.isArray(value)) {
    const n = value.length;
    head(4, n);
    for (let i = 0; i < n; i++) {
      const item: unknown = value[i];
      if (item === undefined || !writeValue(item, depth + 1)) return false;
    }
    return true;
  }
  if (value instanceof Uint8Array) {
    head(2, value.length);
    putBytes(value);
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return writeRecord(value as Record<string, unknown>, depth);
  if (value instanceof Dec128) {
    reserve(3);
    buf[pos++] = 0xd9;
    buf[pos++] = 0x07;
    buf[pos++] = 0xd0;
    head(2, value.bytes.length);
    putBytes(value.bytes);
    return true;
  }
  return false;
}

/** The keys of a kind of record, in canonical order, each with its encoding. */
interface Shape {
  keys: readonly string[];
  sorted: readonly string[];
  encoded: readonly Uint8Array[];
}

/** Shapes seen, by their first key: records of one kind come by the thousand (journal entries, intents). */
const shapes = new Map<string, Shape[]>();
let shapeCount = 0;

/** A plain object: keys in the order of their encodings, which for ASCII text is shorter first, then by code unit. */
function writeRecord(record: Record<string, unknown>, depth: number): boolean {
  const keys = Object.keys(record);
  const n = keys.length;
  const shape = n === 0 ? undefined : shapeOf(keys);
  if (n > 0 && shape === undefined) return false;
  head(5, n);
  for (let i = 0; i < n; i++) {
    const key = shape!.sorted[i]!;
    const item = record[key];
    if (item === undefined) return false;
    putBytes(shape!.encoded[i]!);
    if (!writeValue(item, depth + 1)) return false;
  }
  return true;
}

/** The shape of a record with these keys (in `Object.keys` order); undefined when a key is not ASCII. */
function shapeOf(keys: readonly string[]): Shape | undefined {
  const known = shapes.get(keys[0]!);
  if (known !== undefined)
    for (const shape of known) {
      if (shape.keys.length !== keys.length) continue;
      let same = true;
      for (let i = 1; i < keys.length && same; i++) same = shape.keys[i] === keys[i];
      if (same) return shape;
    }
  for (const key of keys) if (!isAscii(key)) return undefined;
  const sorted = [...keys].sort(compareAsciiKeys);
  const shape: Shape = { keys: [...keys], sorted, encoded: sorted.map(asciiBytes) };
  if (++shapeCount > 4096) {
    shapes.clear();
    shapeCount = 1;
  }
  const list = shapes.get(keys[0]!);
  if (list === undefined) shapes.set(keys[0]!, [shape]);
  else list.push(shape);
  return shape;
}

/** The encoding of an ASCII text key: its head (major type 3, the length) and its characters. */
function asciiBytes(key: string): Uint8Array {
  const n = key.length;
  const size = n < 24 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5;
  const out = new Uint8Array(size + n);
  if (size === 1) out[0] = 0x60 | n;
  else if (size === 2) out.set([0x78, n]);
  else if (size === 3) out.set([0x79, n >>> 8, n & 0xff]);
  else out.set([0x7a, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
  for (let i = 0; i < n; i++) out[size + i] = key.charCodeAt(i);
  return out;
}

function compareAsciiKeys(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Text as UTF-8; a lone surrogate declines (the general encoder words that error). */
function writeText(text: string): boolean {
  const n = text.length;
  const start = pos;
  head(3, n);
  reserve(n);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) {
      pos = start;
      return writeUnicode(text);
    }
    buf[pos++] = c;
  }
  return true;
}

function writeUnicode(text: string): boolean {
  const n = text.length;
  let length = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) length += 1;
    else if (c < 0x800) length += 2;
    else if (c < 0xd800 || c > 0xdfff) length += 3;
    else {
      const d = text.charCodeAt(i + 1);
      if (c >= 0xdc00 || !(d >= 0xdc00 && d <= 0xdfff)) return false;
      length += 4;
      i++;
    }
  }
  head(3, length);
  reserve(length);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) buf[pos++] = c;
    else if (c < 0x800) {
      buf[pos++] = 0xc0 | (c >> 6);
      buf[pos++] = 0x80 | (c & 63);
    } else if (c < 0xd800 || c > 0xdfff) {
      buf[pos++] = 0xe0 | (c >> 12);
      buf[pos++] = 0x80 | ((c >> 6) & 63);
      buf[pos++] = 0x80 | (c & 63);
    } else {
      const cp = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      buf[pos++] = 0xf0 | (cp >> 18);
      buf[pos++] = 0x80 | ((cp >> 12) & 63);
      buf[pos++] = 0x80 | ((cp >> 6) & 63);
      buf[pos++] = 0x80 | (cp & 63);
    }
  }
  return true;
}
