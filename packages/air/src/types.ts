import type { CborValue } from './cbor-value.js';
import { type AirDiagnostic, type AirResult, diagnostic, pointer } from './diagnostic.js';
import { isName } from './names.js';
import { type Hash, hashNode } from './node-hash.js';

/** The primitive types of AIR. */
export const PRIMITIVES = ['bool', 'int', 'nat', 'dec128', 'bytes', 'text', 'time', 'duration', 'hash', 'uuid', 'unit'] as const;
export type PrimitiveName = (typeof PRIMITIVES)[number];

/** Types a map may be keyed by. */
export const MAP_KEY_TYPES = ['int', 'nat', 'text', 'uuid', 'hash'] as const;
export type MapKeyName = (typeof MAP_KEY_TYPES)[number];

/** A type expression: primitive, composite, or a reference to a named schema. */
export type AirType =
  | { kind: 'primitive'; name: PrimitiveName }
  | { kind: 'record'; fields: Readonly<Record<string, AirType>> }
  | { kind: 'variant'; alternatives: Readonly<Record<string, AirType>> }
  | { kind: 'list'; item: AirType }
  | { kind: 'set'; item: AirType }
  | { kind: 'map'; key: MapKeyName; value: AirType }
  | { kind: 'option'; item: AirType }
  | { kind: 'ref'; name: string };

const COMPOSITES = ['record', 'variant', 'list', 'set', 'map', 'option'] as const;

/** Parses the text form of a type (`{"text":{}}`, `{"record":{…}}`, `{"ref":"ns/Name@1"}`), reporting every problem. */
export function parseType(json: unknown, path = ''): AirResult<AirType> {
  const problems: AirDiagnostic[] = [];
  const type = parseTypeAt(json, path, problems);
  return problems.length === 0 && type !== undefined ? { ok: true, value: type } : { ok: false, diagnostics: problems };
}

function parseTypeAt(json: unknown, path: string, problems: AirDiagnostic[]): AirType | undefined {
  const fail = (code: string, message: string) => {
    problems.push(diagnostic(code, message, path));
    return undefined;
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return fail('type.shape', 'a type is an object with one key, such as {"text":{}} or {"record":{…}}');
  }
  const keys = Object.keys(json);
  if (keys.length !== 1)
    return fail('type.shape', `a type has exactly one key; found ${keys.length === 0 ? 'none' : keys.map((k) => `"${k}"`).join(', ')}`);
  const key = keys[0]!;
  const body = (json as Record<string, unknown>)[key];
  const at = pointer(path, key);
  if ((PRIMITIVES as readonly string[]).includes(key)) {
    if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0) {
      problems.push(diagnostic('type.primitive', `the primitive "${key}" takes an empty object: {"${key}":{}}`, at));
      return undefined;
    }
    return { kind: 'primitive', name: key as PrimitiveName };
  }
  if (key === 'ref') {
    if (!isName(body)) {
      problems.push(diagnostic('type.ref', 'a type reference names a schema: {"ref":"namespace/Name@N"}', at));
      return undefined;
    }
    return { kind: 'ref', name: body };
  }
  if (key === 'record' || key === 'variant') {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      problems.push(diagnostic('type.shape', `"${key}" maps ${key === 'record' ? 'field' : 'alternative'} names to types`, at));
      return undefined;
    }
    const members: Record<string, AirType> = {};
    let complete = true;
    for (const [name, member] of Object.entries(body)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        problems.push(
          diagnostic('type.member-name', `"${name}" is not a valid ${key === 'record' ? 'field' : 'alternative'} name`, pointer(at, name)),
        );
        complete = false;
        continue;
      }
      const parsed = parseTypeAt(member, pointer(at, name), problems);
      if (parsed === undefined) complete = false;
      else members[name] = parsed;
    }
    if (key === 'variant' && Object.keys(body).length === 0) {
      problems.push(diagnostic('type.variant-empty', 'a variant needs at least one alternative', at));
      return undefined;
    }
    if (!complete) return undefined;
    return key === 'record' ? { kind: 'record', fields: members } : { kind: 'variant', alternatives: members };
  }
  if (key === 'list' || key === 'set' || key === 'option') {
    const item = parseTypeAt(body, at, problems);
    return item === undefined ? undefined : { kind: key, item };
  }
  if (key === 'map') {
    if (
      typeof body !== 'object' ||
      body === null ||
      Array.isArray(body) ||
      !('key' in body) ||
      !('value' in body) ||
      Object.keys(body).length !== 2
    ) {
      problems.push(diagnostic('type.map', 'a map type is {"map":{"key":<type>,"value":<type>}}', at));
      return undefined;
    }
    const keyJson = (body as { key: unknown }).key;
    const keyName = typeof keyJson === 'object' && keyJson !== null ? Object.keys(keyJson)[0] : undefined;
    const keyOk =
      keyName !== undefined &&
      (MAP_KEY_TYPES as readonly string[]).includes(keyName) &&
      parseTypeAt(keyJson, pointer(at, 'key'), []) !== undefined;
    if (!keyOk) problems.push(diagnostic('type.map-key', `map keys must be one of ${MAP_KEY_TYPES.join(', ')}`, pointer(at, 'key')));
    const value = parseTypeAt((body as { value: unknown }).value, pointer(at, 'value'), problems);
    return keyOk && value !== undefined ? { kind: 'map', key: keyName as MapKeyName, value } : undefined;
  }
  return fail('type.unknown', `unknown type "${key}"; expected one of ${[...PRIMITIVES, ...COMPOSITES, 'ref'].join(', ')}`);
}

/** The text form of a type (what `parseType` reads). */
export function typeToJson(type: AirType): CborValue {
  switch (type.kind) {
    case 'primitive':
      return { [type.name]: {} };
    case 'record':
      return { record: Object.fromEntries(Object.entries(type.fields).map(([k, t]) => [k, typeToJson(t)])) };
    case 'variant':
      return { variant: Object.fromEntries(Object.entries(type.alternatives).map(([k, t]) => [k, typeToJson(t)])) };
    case 'list':
    case 'set':
    case 'option':
      return { [type.kind]: typeToJson(type.item) };
    case 'map':
      return { map: { key: { [type.key]: {} }, value: typeToJson(type.value) } };
    case 'ref':
      return { ref: type.name };
  }
}

/** Looks up a named schema's type. */
export type SchemaLookup = (name: string) => AirType | undefined;

/**
 * Replaces every reference by the type it names, recursively. A reference to an unknown schema or a cycle
 * (recursive types are not allowed in AIR v1) is a diagnostic.
 */
export function expandType(type: AirType, lookup: SchemaLookup, path = '', seen: readonly string[] = []): AirResult<AirType> {
  const problems: AirDiagnostic[] = [];
  const expanded = expandAt(type, lookup, path, seen, problems);
  return problems.length === 0 && expanded !== undefined ? { ok: true, value: expanded } : { ok: false, diagnostics: problems };
}

function expandAt(
  type: AirType,
  lookup: SchemaLookup,
  path: string,
  seen: readonly string[],
  problems: AirDiagnostic[],
): AirType | undefined {
  switch (type.kind) {
    case 'primitive':
      return type;
    case 'ref': {
      if (seen.includes(type.name)) {
        problems.push(
          diagnostic(
            'type.cycle',
            `recursive type: ${[...seen.slice(seen.indexOf(type.name)), type.name].join(' -> ')}; AIR v1 types cannot refer to themselves`,
            path,
          ),
        );
        return undefined;
      }
      const target = lookup(type.name);
      if (target === undefined) {
        problems.push(diagnostic('type.unknown-ref', `no schema named "${type.name}"`, path));
        return undefined;
      }
      return expandAt(target, lookup, path, [...seen, type.name], problems);
    }
    case 'record':
    case 'variant': {
      const members = type.kind === 'record' ? type.fields : type.alternatives;
      const out: Record<string, AirType> = {};
      let complete = true;
      for (const [name, member] of Object.entries(members)) {
        const expanded = expandAt(member, lookup, pointer(pointer(path, type.kind), name), seen, problems);
        if (expanded === undefined) complete = false;
        else out[name] = expanded;
      }
      if (!complete) return undefined;
      return type.kind === 'record' ? { kind: 'record', fields: out } : { kind: 'variant', alternatives: out };
    }
    case 'list':
    case 'set':
    case 'option': {
      const item = expandAt(type.item, lookup, pointer(path, type.kind), seen, problems);
      return item === undefined ? undefined : { kind: type.kind, item };
    }
    case 'map': {
      const value = expandAt(type.value, lookup, pointer(pointer(path, 'map'), 'value'), seen, problems);
      return value === undefined ? undefined : { kind: 'map', key: type.key, value };
    }
  }
}

/** `schema_hash`: the node hash of the fully expanded type's text form. */
export function schemaHash(expanded: AirType): Hash {
  return hashNode(typeToJson(expanded));
}
