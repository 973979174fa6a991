import { BASE64_PATTERN, bytesFromBase64, bytesFromHex } from './bytes-text.js';
import { compareBytes, encodeCanonical } from './canonical-cbor.js';
import { type CborValue, Dec128 } from './cbor-value.js';
import { parseDec128 } from './dec128.js';
import { type AirDiagnostic, type AirResult, diagnostic, pointer } from './diagnostic.js';
import { type Hash, hashNode, isHash } from './node-hash.js';
import type { AirType } from './types.js';
import { isWellFormedString } from './utf8.js';

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Checks a value in its JSON text form against an expanded type and returns its canonical CBOR value, or
 * every mismatch with a JSON pointer. Text forms: integers as numbers, bigints or digit strings; `dec128` as a
 * decimal string; `bytes` as base64; `hash` as `sha256:HEX` (32 bytes in CBOR); `uuid` as the 8-4-4-4-12 form
 * (16 bytes); `time` and `duration` as integer nanoseconds; `unit` as `{}`; a variant as
 * `{"$tag": "Alt", "$value": v}`; a map with non-text keys as `[[key, value], …]`; a record field of option
 * type may be left out (none), and none fields are left out of the canonical form. Canonical values (bytes for
 * hashes and uuids, `Map`s, bigints, `Dec128`) are accepted too, so encoding is idempotent.
 */
export function encodeTypedValue(value: unknown, type: AirType, path = ''): AirResult<CborValue> {
  const problems: AirDiagnostic[] = [];
  const encoded = encodeAt(value, type, path, problems);
  return problems.length === 0 ? { ok: true, value: encoded as CborValue } : { ok: false, diagnostics: problems };
}

/** The mismatches of a value against an expanded type (empty when it conforms). */
export function checkValue(value: unknown, type: AirType, path = ''): AirDiagnostic[] {
  const result = encodeTypedValue(value, type, path);
  return result.ok ? [] : result.diagnostics;
}

/** The hash of a value bound to a schema: the node `{ "$schema": schema_hash, "$value": canonical value }`. */
export function hashTypedValue(value: unknown, type: AirType, schemaHash: Hash): AirResult<Hash> {
  const encoded = encodeTypedValue(value, type);
  return encoded.ok ? { ok: true, value: hashNode({ $schema: schemaHash, $value: encoded.value }) } : encoded;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return `${typeof value} ${String(value)}`;
}

function encodeAt(value: unknown, type: AirType, path: string, problems: AirDiagnostic[]): CborValue | undefined {
  const bad = (what: string): undefined => {
    problems.push(diagnostic('value.type', `expected ${what}, found ${describe(value)}`, path));
    return undefined;
  };
  switch (type.kind) {
    case 'ref':
      problems.push(diagnostic('value.unexpanded', `type reference "${type.name}" must be expanded before values are checked`, path));
      return undefined;
    case 'primitive':
      return encodePrimitive(value, type.name, path, problems, bad);
    case 'option':
      return value === null ? null : encodeAt(value, type.item, path, problems);
    case 'list':
    case 'set': {
      if (!Array.isArray(value)) return bad(type.kind === 'list' ? 'a list (array)' : 'a set (array)');
      const items = value.map((item, i) => encodeAt(item, type.item, pointer(path, i), problems));
      if (type.kind === 'list') return items as CborValue[];
      const keyed = items.filter((i): i is CborValue => i !== undefined).map((item) => ({ item, bytes: encodeCanonical(item) }));
      keyed.sort((a, b) => compareBytes(a.bytes, b.bytes));
      for (let i = 1; i < keyed.length; i++) {
        if (compareBytes(keyed[i - 1]!.bytes, keyed[i]!.bytes) === 0)
          problems.push(diagnostic('value.set-duplicate', 'a set holds each element once; this element is repeated', path));
      }
      return keyed.map((k) => k.item);
    }
    case 'record': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('a record (object)');
      const out: Record<string, CborValue> = {};
      for (const [field, fieldType] of Object.entries(type.fields)) {
        const present = Object.hasOwn(value, field);
        const fieldValue = present ? (value as Record<string, unknown>)[field] : undefined;
        if (!present || fieldValue === null) {
          if (fieldType.kind === 'option') continue;
          if (!present) {
            problems.push(diagnostic('value.missing-field', `required field "${field}" is missing`, pointer(path, field)));
            continue;
          }
        }
        const encoded = encodeAt(fieldValue, fieldType, pointer(path, field), problems);
        if (encoded !== undefined && !(fieldType.kind === 'option' && encoded === null)) out[field] = encoded;
      }
      for (const field of Object.keys(value)) {
        if (!Object.hasOwn(type.fields, field))
          problems.push(diagnostic('value.unknown-field', `field "${field}" is not in the record type`, pointer(path, field)));
      }
      return out;
    }
    case 'variant': {
      if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { $tag?: unknown }).$tag !== 'string') {
        return bad('a variant {"$tag": "<alternative>", "$value": …}');
      }
      const tag = (value as { $tag: string }).$tag;
      const alternative = type.alternatives[tag];
      if (alternative === undefined || !Object.hasOwn(type.alternatives, tag)) {
        problems.push(
          diagnostic(
            'value.variant-tag',
            `"${tag}" is not an alternative; expected one of ${Object.keys(type.alternatives).join(', ')}`,
            pointer(path, '$tag'),
          ),
        );
        return undefined;
      }
      const extra = Object.keys(value).filter((k) => k !== '$tag' && k !== '$value');
      if (extra.length > 0)
        problems.push(
          diagnostic('value.unknown-field', `a variant has only "$tag" and "$value"; found ${extra.map((k) => `"${k}"`).join(', ')}`, path),
        );
      const hasValue = Object.hasOwn(value, '$value');
      const isUnit = alternative.kind === 'primitive' && alternative.name === 'unit';
      if (!hasValue && !isUnit) {
        problems.push(diagnostic('value.missing-field', `alternative "${tag}" carries a value: add "$value"`, pointer(path, '$value')));
        return undefined;
      }
      const inner = encodeAt(hasValue ? (value as { $value: unknown }).$value : {}, alternative, pointer(path, '$value'), problems);
      return inner === undefined ? undefined : { $tag: tag, $value: inner };
    }
    case 'map': {
      if (type.key === 'text') {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('a map with text keys (object)');
        const out: Record<string, CborValue> = {};
        for (const [k, v] of Object.entries(value)) {
          const encoded = encodeAt(v, type.value, pointer(path, k), problems);
          if (encoded !== undefined) out[k] = encoded;
        }
        return out;
      }
      const pairs = value instanceof Map ? [...value.entries()] : value;
      if (!Array.isArray(pairs)) return bad(`a map with ${type.key} keys ([[key, value], …])`);
      const out = new Map<CborValue, CborValue>();
      const seen = new Set<string>();
      pairs.forEach((pair, i) => {
        const at = pointer(path, i);
        if (!Array.isArray(pair) || pair.length !== 2) {
          problems.push(diagnostic('value.type', 'a map entry is [key, value]', at));
          return;
        }
        const key = encodePrimitive(pair[0], type.key, pointer(at, 0), problems, (what) => {
          problems.push(diagnostic('value.type', `expected ${what} as map key, found ${describe(pair[0])}`, pointer(at, 0)));
          return undefined;
        });
        const encoded = encodeAt(pair[1], type.value, pointer(at, 1), problems);
        if (key === undefined || encoded === undefined) return;
        const id = Array.from(encodeCanonical(key)).join(',');
        if (seen.has(id)) problems.push(diagnostic('value.map-duplicate', 'this key appears twice in the map', pointer(at, 0)));
        seen.add(id);
        out.set(key, encoded);
      });
      return out;
    }
  }
}

function encodePrimitive(
  value: unknown,
  name: string,
  path: string,
  problems: AirDiagnostic[],
  bad: (what: string) => undefined,
): CborValue | undefined {
  const range = (n: bigint, min: bigint, max: bigint, what: string): CborValue | undefined => {
    if (n < min || n > max) {
      problems.push(diagnostic('value.range', `${what} out of range: ${n} is not within ${min}..${max}`, path));
      return undefined;
    }
    return Number.isSafeInteger(Number(n)) && BigInt(Number(n)) === n ? Number(n) : n;
  };
  switch (name) {
    case 'bool':
      return typeof value === 'boolean' ? value : bad('a bool');
    case 'int':
    case 'nat':
    case 'time':
    case 'duration': {
      const n = toBigInt(value);
      if (n === undefined) return bad(`an integer (${name})`);
      return name === 'nat'
        ? range(n, 0n, U64_MAX, 'nat')
        : name === 'time'
          ? range(n, 0n, I64_MAX, 'time (ns since the epoch)')
          : range(n, I64_MIN, I64_MAX, name);
    }
    case 'dec128': {
      if (value instanceof Dec128) return value;
      const dec = typeof value === 'string' ? parseDec128(value) : undefined;
      return dec ?? bad('a decimal string for dec128 (such as "0.2"), within 34 digits');
    }
    case 'bytes':
      if (value instanceof Uint8Array) return value;
      return typeof value === 'string' && BASE64_PATTERN.test(value) ? bytesFromBase64(value) : bad('bytes as a base64 string');
    case 'text':
      if (typeof value !== 'string') return bad('text');
      if (!isWellFormedString(value)) return bad('well-formed text (no lone surrogates)');
      return value;
    case 'hash':
      if (value instanceof Uint8Array && value.length === 32) return value;
      return isHash(value) ? bytesFromHex(value.slice(7)) : bad('a hash "sha256:<64 hex digits>"');
    case 'uuid':
      if (value instanceof Uint8Array && value.length === 16) return value;
      return typeof value === 'string' && UUID.test(value) ? bytesFromHex(value.replace(/-/g, '')) : bad('a lowercase UUID');
    case 'unit':
      return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
        ? {}
        : bad('unit ({})');
    default:
      return bad(name);
  }
}

function toBigInt(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value === 'string' && /^-?(0|[1-9]\d*)$/.test(value)) return BigInt(value);
  return undefined;
}

/** The zero value of an expanded type (a reducer's state before its first step): 0, "", false, empty composites, none, the first variant alternative. */
export function zeroValue(type: AirType): CborValue {
  switch (type.kind) {
    case 'primitive':
      switch (type.name) {
        case 'bool':
          return false;
        case 'text':
          return '';
        case 'bytes':
          return new Uint8Array(0);
        case 'hash':
          return new Uint8Array(32);
        case 'uuid':
          return new Uint8Array(16);
        case 'dec128':
          return parseDec128('0')!;
        case 'unit':
          return {};
        default:
          return 0;
      }
    case 'record':
      return Object.fromEntries(
        Object.entries(type.fields)
          .filter(([, t]) => t.kind !== 'option')
          .map(([f, t]) => [f, zeroValue(t)]),
      );
    case 'variant': {
      const [tag, alternative] = Object.entries(type.alternatives)[0]!;
      return { $tag: tag, $value: zeroValue(alternative) };
    }
    case 'list':
    case 'set':
      return [];
    case 'map':
      return type.key === 'text' ? {} : new Map();
    case 'option':
    case 'ref':
      return null;
  }
}
