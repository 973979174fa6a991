import { decode, encode, Token, Type } from 'cborg';
import { MAX_CBOR_DEPTH, scanCbor } from './cbor-scan.js';
import { type CborValue, Dec128, Tagged } from './cbor-value.js';
import { type EncodedPart, writeCanonical } from './cbor-writer.js';
import { AirError } from './errors.js';
import { isWellFormedString } from './utf8.js';

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const DEC128_TAG = 2000;

type Entry = [Token | Token[], unknown];

/** RFC 8949 §4.2.1: map keys in the bytewise order of their encodings (so shorter text keys first). */
function compareEncodedKeys(a: Entry, b: Entry): number {
  return compareBytes(keyBytes(a[0]), keyBytes(b[0]));
}

function keyBytes(key: Token | Token[]): Uint8Array {
  if (Array.isArray(key) || key.type === Type.array || key.type === Type.map || key.type === Type.tag) {
    throw new AirError('AIR_VALUE_UNENCODABLE', 'map keys must be integers, text or byte strings');
  }
  const cached = (key as Token & { keyBytes?: Uint8Array }).keyBytes;
  if (cached !== undefined) return cached;
  const bytes = encodeKey(key.value as CborValue);
  (key as Token & { keyBytes?: Uint8Array }).keyBytes = bytes;
  return bytes;
}

/**
 * The canonical encoding of a map key (an integer, text or bytes), written here: cborg's `encode` shares one
 * buffer and must not be called again while it is sorting a map.
 */
function encodeKey(key: CborValue): Uint8Array {
  if (typeof key === 'string') return withHead(3, utf8Bytes(key));
  if (key instanceof Uint8Array) return withHead(2, key);
  if (typeof key === 'number' && Number.isSafeInteger(key)) return key >= 0 ? head(0, BigInt(key)) : head(1, BigInt(-1 - key));
  if (typeof key === 'bigint' && key >= -U64_MAX - 1n && key <= U64_MAX) return key >= 0n ? head(0, key) : head(1, -1n - key);
  throw new AirError('AIR_VALUE_UNENCODABLE', 'map keys must be integers, text or byte strings');
}

function head(major: number, argument: bigint): Uint8Array {
  const top = major << 5;
  if (argument < 24n) return Uint8Array.of(top | Number(argument));
  const size = argument < 0x100n ? 1 : argument < 0x10000n ? 2 : argument < 0x1_0000_0000n ? 4 : 8;
  const out = new Uint8Array(1 + size);
  out[0] = top | (24 + Math.log2(size));
  for (let i = size; i >= 1; i--) {
    out[i] = Number(argument & 0xffn);
    argument >>= 8n;
  }
  return out;
}

function withHead(major: number, payload: Uint8Array): Uint8Array {
  const prefix = head(major, BigInt(payload.length));
  const out = new Uint8Array(prefix.length + payload.length);
  out.set(prefix);
  out.set(payload, prefix.length);
  return out;
}

function utf8Bytes(text: string): Uint8Array {
  const out: number[] = [];
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Uint8Array.from(out);
}

/** Lexicographic comparison of byte strings. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

const ENCODE_OPTIONS = {
  float64: false,
  mapSorter: compareEncodedKeys as never,
  typeEncoders: {
    Object(value: unknown): Token[] | null {
      if (value instanceof Dec128) return [new Token(Type.tag, DEC128_TAG), new Token(Type.bytes, value.bytes)];
      if (value instanceof Tagged) return [new Token(Type.tag, value.tag as number), ...tokensOf(value.value)] as Token[];
      return null;
    },
    bigint(value: bigint): Token[] | null {
      if (value >= -U64_MAX - 1n && value <= U64_MAX) return null;
      const negative = value < 0n;
      return [new Token(Type.tag, negative ? 3 : 2), new Token(Type.bytes, bigintBytes(negative ? -1n - value : value))];
    },
    number(value: number): Token[] | null {
      return Object.is(value, -0) ? [new Token(Type.uint, 0)] : null;
    },
  },
};

type Tokens = Token | Tokens[];

/** Tokens of a tagged item's content, built here because cborg's own tokenizer is not exported. */
function tokensOf(value: CborValue): Tokens[] {
  if (value === null) return [new Token(Type.null, null)];
  if (value === true) return [new Token(Type.true, true)];
  if (value === false) return [new Token(Type.false, false)];
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return [new Token(value >= 0 ? Type.uint : Type.negint, Object.is(value, -0) ? 0 : value)];
    return [new Token(Type.float, value)];
  }
  if (typeof value === 'bigint') {
    const custom = ENCODE_OPTIONS.typeEncoders.bigint(value);
    return custom ?? [new Token(value >= 0n ? Type.uint : Type.negint, value)];
  }
  if (typeof value === 'string') return [new Token(Type.string, value)];
  if (value instanceof Uint8Array) return [new Token(Type.bytes, value)];
  if (value instanceof Dec128 || value instanceof Tagged) return ENCODE_OPTIONS.typeEncoders.Object(value)!;
  if (Array.isArray(value)) return [new Token(Type.array, value.length), ...(value as CborValue[]).map(tokensOf)];
  const entries: [CborValue, CborValue][] = value instanceof Map ? [...value.entries()] : Object.entries(value);
  const sorted = entries
    .map(([k, v]) => ({ key: encodeKey(k), tokens: [tokensOf(k), tokensOf(v)] }))
    .sort((x, y) => compareBytes(x.key, y.key));
  return [new Token(Type.map, entries.length), ...sorted.map((e) => e.tokens)];
}

function bigintBytes(value: bigint): Uint8Array {
  const hex = value.toString(16);
  const padded = hex.length % 2 === 0 ? hex : '0' + hex;
  const out = new Uint8Array(padded.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(padded.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Encodes a value in RFC 8949 core deterministic encoding: shortest integers and floats, definite lengths,
 * map keys in bytewise order of their encodings. A number that is a safe integer is an integer (JavaScript
 * has one number type, so -0 and 1.0 encode as 0 and 1: the numeric reduction of RFC 8949 §4.2.2); any other
 * number is the shortest float that holds it exactly; integers beyond 2^53 must be bigints to stay
 * integers. Throws AIR_VALUE_UNENCODABLE for undefined, functions, NaN, infinities, lone surrogates,
 * unsupported objects, and nesting deeper than the decoder accepts.
 */
export function encodeCanonical(value: CborValue): Uint8Array {
  return writeCanonical(value) ?? encodeGeneral(value, 0, '');
}

/**
 * The canonical encoding of a value that sits at nesting `depth` inside another (at `pointer`, for errors), to be
 * reused with `withKnownEncodings` when the enclosing value is encoded. Throws what encoding the enclosing value
 * would throw for it.
 */
export function encodePart(value: CborValue, depth: number, pointer: string): EncodedPart {
  return { bytes: writeCanonical(value, depth) ?? encodeGeneral(value, depth, pointer), depth };
}

/** `encodePart`, or undefined when the value cannot be encoded (the enclosing encoding then reports why). */
export function tryEncodePart(value: CborValue, depth: number): EncodedPart | undefined {
  try {
    return encodePart(value, depth, '');
  } catch {
    return undefined;
  }
}

/** The general encoder: every value of the data model, with the checks and errors of the profile. */
export function encodeGeneral(value: CborValue, depth: number, pointer: string): Uint8Array {
  checkEncodable(value, depth, pointer);
  return encode(value as never, ENCODE_OPTIONS as never);
}

function checkEncodable(value: unknown, depth: number, pointer: string): void {
  const bad = (why: string) => {
    throw new AirError('AIR_VALUE_UNENCODABLE', `cannot encode ${pointer || '/'}: ${why}`);
  };
  if (depth > MAX_CBOR_DEPTH) bad(`nesting deeper than ${MAX_CBOR_DEPTH} levels`);
  if (value === null || typeof value === 'boolean' || typeof value === 'bigint') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) bad('NaN and infinities are not in the data model');
    return;
  }
  if (typeof value === 'string') {
    if (!isWellFormedString(value)) bad('text with a lone surrogate');
    return;
  }
  if (value instanceof Uint8Array || value instanceof Dec128) return;
  if (value instanceof Tagged) {
    checkEncodable(value.value, depth + 1, pointer);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkEncodable(item, depth + 1, `${pointer}/${i}`));
    return;
  }
  if (value instanceof Map) {
    for (const [k, v] of value) {
      if (!(typeof k === 'string' || typeof k === 'number' || typeof k === 'bigint' || k instanceof Uint8Array))
        bad('map keys must be integers, text or byte strings');
      checkEncodable(k, depth + 1, pointer);
      checkEncodable(v, depth + 1, `${pointer}/${String(k)}`);
    }
    return;
  }
  if (typeof value === 'object' && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    for (const [k, v] of Object.entries(value as object)) {
      if (v === undefined) bad(`field "${k}" is undefined`);
      checkEncodable(v, depth + 1, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
    return;
  }
  bad(`${typeof value === 'object' ? ((value as object).constructor?.name ?? 'object') : typeof value} is not in the data model`);
}

const TAG_DECODERS = new Proxy([] as unknown[], {
  get(_target, property) {
    if (typeof property !== 'string' || !/^\d+$/.test(property)) return undefined;
    const tag = Number(property);
    return (content: unknown) => decodeTagged(tag, content);
  },
});

function decodeTagged(tag: number, content: unknown): unknown {
  if (tag === DEC128_TAG) {
    if (!(content instanceof Uint8Array) || content.length !== 16)
      throw new AirError('AIR_CBOR_MALFORMED', 'tag 2000 (dec128) must wrap a 16-byte string');
    return new Dec128(content);
  }
  if ((tag === 2 || tag === 3) && content instanceof Uint8Array) {
    let n = 0n;
    for (const byte of content) n = (n << 8n) | BigInt(byte);
    return tag === 2 ? n : -1n - n;
  }
  return new Tagged(tag, content as CborValue);
}

/**
 * Decodes one canonical data item. Rejects (AirError) anything malformed or outside the profile — indefinite
 * lengths, undefined and simple values, NaN and infinities, ill-formed UTF-8 — nesting deeper than 128,
 * duplicate map keys, and any item whose canonical re-encoding differs from the input.
 */
export function decodeCanonical(bytes: Uint8Array, options: { maxDepth?: number } = {}): CborValue {
  if (!(bytes instanceof Uint8Array)) throw new AirError('AIR_CBOR_MALFORMED', 'input must be a Uint8Array');
  scanCbor(bytes, options.maxDepth ?? MAX_CBOR_DEPTH);
  let decoded: unknown;
  try {
    decoded = decode(bytes, {
      strict: true,
      allowIndefinite: false,
      allowUndefined: false,
      allowNaN: false,
      allowInfinity: false,
      allowBigInt: true,
      rejectDuplicateMapKeys: true,
      useMaps: true,
      tags: TAG_DECODERS as never,
    });
  } catch (cause) {
    if (cause instanceof AirError) throw cause;
    const message = (cause as Error).message ?? String(cause);
    const code = /duplicate|repeat map key/i.test(message)
      ? 'AIR_CBOR_DUPLICATE_KEY'
      : /minimal|canonical|strict/i.test(message)
        ? 'AIR_CBOR_NOT_CANONICAL'
        : 'AIR_CBOR_MALFORMED';
    throw new AirError(code, `CBOR rejected: ${message}`, { cause });
  }
  const value = fromDecoded(decoded);
  const again = encodeCanonical(value);
  if (compareBytes(again, bytes) !== 0) {
    let at = 0;
    while (at < again.length && again[at] === bytes[at]) at++;
    throw new AirError('AIR_CBOR_NOT_CANONICAL', `CBOR is well-formed but not in canonical form (first difference at byte ${at})`, {
      offset: at,
    });
  }
  return value;
}

/** Maps with only text keys become plain objects (own properties, so "__proto__" is just a key). */
function fromDecoded(value: unknown): CborValue {
  if (Array.isArray(value)) return value.map(fromDecoded);
  if (value instanceof Tagged) return new Tagged(value.tag, fromDecoded(value.value));
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([k, v]) => [fromDecoded(k), fromDecoded(v)] as const);
    if (entries.every(([k]) => typeof k === 'string')) {
      const out: Record<string, CborValue> = {};
      for (const [k, v] of entries)
        Object.defineProperty(out, k as string, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    }
    return new Map(entries);
  }
  return value as CborValue;
}
