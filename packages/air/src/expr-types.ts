import { type AirDiagnostic, diagnostic, pointer } from './diagnostic.js';
import { OPERATORS } from './expr-operators.js';
import { parseExprRef } from './expr-refs.js';
import type { AirType, PrimitiveName } from './types.js';

/** A statically known type, `null` for the null constant, or undefined where the type is not known. */
export type InferredType = AirType | 'null' | undefined;

/** What is in scope for an expression: the plan input's type, variables and step outputs (a known name with an unknown type maps to undefined). */
export interface TypeScope {
  input?: AirType;
  vars: ReadonlyMap<string, AirType | undefined>;
  steps: ReadonlyMap<string, AirType | undefined>;
}

const prim = (name: PrimitiveName): AirType => ({ kind: 'primitive', name });
/** Stands for a part of a composite whose type is not known statically; it fits anywhere. */
const UNKNOWN: AirType = { kind: 'ref', name: '?' };
const BOOL = prim('bool');
const INTEGERS = new Set<string>(['int', 'nat', 'time', 'duration']);

/**
 * Infers the type of an expression and reports what cannot be right whatever the input: references to
 * variables or steps not in scope, fields the input type does not have, operators applied to operands of
 * the wrong type. Unknown types pass silently (runtime evaluation still checks them).
 */
export function inferExprType(expr: unknown, scope: TypeScope, path: string, problems: AirDiagnostic[]): InferredType {
  if (typeof expr !== 'object' || expr === null || Array.isArray(expr)) return undefined;
  const e = expr as Record<string, unknown>;
  if ('op' in e) return inferOp(e.op, e.args, scope, path, problems);
  const key = Object.keys(e)[0];
  const body = key === undefined ? undefined : e[key];
  const at = pointer(path, key ?? '');
  switch (key) {
    case 'ref':
      return inferRef(body, scope, at, problems);
    case 'null':
      return 'null';
    case 'bool':
      return BOOL;
    case 'int':
      return prim('int');
    case 'nat':
      return prim('nat');
    case 'time_ns':
      return prim('time');
    case 'duration_ns':
      return prim('duration');
    case 'dec128':
    case 'text':
    case 'hash':
    case 'uuid':
      return prim(key);
    case 'bytes_b64':
      return prim('bytes');
    case 'record': {
      if (typeof body !== 'object' || body === null) return undefined;
      const fields: Record<string, AirType> = {};
      for (const [field, sub] of Object.entries(body)) {
        const t = inferExprType(sub, scope, pointer(at, field), problems);
        if (t !== 'null') fields[field] = t ?? UNKNOWN;
      }
      return { kind: 'record', fields };
    }
    case 'list':
    case 'set': {
      if (!Array.isArray(body)) return undefined;
      const items = body.map((sub, i) => inferExprType(sub, scope, pointer(at, i), problems));
      const first = items[0];
      return first === undefined || first === 'null' ? undefined : { kind: key, item: first };
    }
    case 'map':
    case 'variant':
      if (key === 'map' && Array.isArray(body))
        body.forEach((entry, i) => {
          if (typeof entry === 'object' && entry !== null) {
            inferExprType((entry as { key?: unknown }).key, scope, pointer(pointer(at, i), 'key'), problems);
            inferExprType((entry as { value?: unknown }).value, scope, pointer(pointer(at, i), 'value'), problems);
          }
        });
      if (key === 'variant' && typeof body === 'object' && body !== null && 'value' in body)
        inferExprType((body as { value: unknown }).value, scope, pointer(at, 'value'), problems);
      return undefined;
    default:
      return undefined;
  }
}

function inferRef(text: unknown, scope: TypeScope, path: string, problems: AirDiagnostic[]): InferredType {
  const ref = typeof text === 'string' ? parseExprRef(text) : undefined;
  if (ref === undefined) return undefined;
  let type: AirType | undefined;
  if (ref.root === 'input') type = scope.input;
  else {
    const table = ref.root === 'var' ? scope.vars : scope.steps;
    if (!table.has(ref.name)) {
      const what =
        ref.root === 'var'
          ? `variable "${ref.name}" is not bound by an earlier step`
          : `step "${ref.name}" does not come before this point`;
      problems.push(diagnostic('expr.unbound-ref', `${text as string}: ${what}`, path));
      return undefined;
    }
    type = table.get(ref.name);
  }
  for (const field of ref.path) {
    if (type === undefined) return undefined;
    const record = type.kind === 'option' ? type.item : type;
    if (record.kind !== 'record') {
      problems.push(diagnostic('expr.no-field', `${text as string}: "${field}" is read from a value that is not a record`, path));
      return undefined;
    }
    if (!Object.hasOwn(record.fields, field)) {
      problems.push(
        diagnostic(
          'expr.no-field',
          `${text as string}: the record has no field "${field}" (fields: ${Object.keys(record.fields).join(', ') || 'none'})`,
          path,
        ),
      );
      return undefined;
    }
    type = record.fields[field];
  }
  return type;
}

function inferOp(op: unknown, args: unknown, scope: TypeScope, path: string, problems: AirDiagnostic[]): InferredType {
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op) || !Array.isArray(args)) return undefined;
  const types = args.map((arg, i) => inferExprType(arg, scope, pointer(pointer(path, 'args'), i), problems));
  const expect = (i: number, ok: (t: AirType) => boolean, what: string) => {
    const t = types[i];
    if (t !== undefined && (t === 'null' || !ok(t))) {
      problems.push(
        diagnostic('expr.type', `"${op}" needs ${what}; argument ${i} is ${describeType(t)}`, pointer(pointer(path, 'args'), i)),
      );
    }
  };
  const isPrim = (names: string[]) => (t: AirType) => t.kind === 'primitive' && names.includes(t.name);
  switch (op) {
    case 'and':
    case 'or':
    case 'not':
      types.forEach((_, i) => expect(i, isPrim(['bool']), 'bools'));
      return BOOL;
    case 'eq':
    case 'ne':
    case 'has':
    case 'contains':
    case 'starts_with':
    case 'ends_with':
      if (op === 'starts_with' || op === 'ends_with') types.forEach((_, i) => expect(i, isPrim(['text']), 'texts'));
      return BOOL;
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge':
      types.forEach((_, i) => expect(i, isPrim(['int', 'nat', 'time', 'duration', 'dec128', 'text']), 'numbers or texts'));
      return BOOL;
    case 'len':
      return prim('nat');
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'mod': {
      types.forEach((_, i) => expect(i, isPrim([...INTEGERS]), 'integers'));
      const first = types[0];
      return first !== undefined &&
        first !== 'null' &&
        first.kind === 'primitive' &&
        INTEGERS.has(first.name) &&
        types.every((t) => t !== undefined && t !== 'null' && t.kind === 'primitive' && t.name === first.name)
        ? first
        : prim('int');
    }
    case 'concat': {
      const first = types[0];
      return first === 'null' ? undefined : first;
    }
    case 'get': {
      const container = types[0];
      if (container === undefined || container === 'null') return undefined;
      if (container.kind === 'list') return container.item;
      if (container.kind === 'map') return container.value;
      return undefined;
    }
    default:
      return undefined;
  }
}

/** True when a value of type `actual` fits where `expected` is required: exact types, with option sugar both ways (T where option<T> is wanted; option<T> where T is, checked again at run time). */
export function isAssignable(actual: InferredType, expected: AirType): boolean {
  if (actual === undefined || (actual !== 'null' && actual.kind === 'ref')) return true;
  if (actual === 'null') return expected.kind === 'option';
  if (expected.kind === 'option')
    return actual.kind === 'option' ? isAssignable(actual.item, expected.item) : isAssignable(actual, expected.item);
  // Reading an optional field where a value is required is allowed statically; evaluation fails if it is absent.
  if (actual.kind === 'option') return isAssignable(actual.item, expected);
  switch (expected.kind) {
    case 'primitive':
      return actual.kind === 'primitive' && actual.name === expected.name;
    case 'record':
      if (actual.kind !== 'record') return false;
      if (Object.keys(actual.fields).some((f) => !Object.hasOwn(expected.fields, f))) return false;
      return Object.entries(expected.fields).every(([f, t]) =>
        Object.hasOwn(actual.fields, f) ? isAssignable(actual.fields[f], t) : t.kind === 'option',
      );
    case 'list':
    case 'set':
      return actual.kind === expected.kind && isAssignable(actual.item, expected.item);
    case 'map':
      return actual.kind === 'map' && actual.key === expected.key && isAssignable(actual.value, expected.value);
    case 'variant':
      return (
        actual.kind === 'variant' &&
        Object.entries(actual.alternatives).every(
          ([k, t]) => Object.hasOwn(expected.alternatives, k) && isAssignable(t, expected.alternatives[k]!),
        )
      );
    case 'ref':
      return true;
  }
}

/** A short description of a type for messages. */
export function describeType(type: InferredType): string {
  if (type === undefined) return 'unknown';
  if (type === 'null') return 'null';
  switch (type.kind) {
    case 'primitive':
      return type.name;
    case 'record':
      return `record {${Object.entries(type.fields)
        .map(([f, t]) => `${f}: ${describeType(t)}`)
        .join(', ')}}`;
    case 'variant':
      return `variant [${Object.keys(type.alternatives).join(', ')}]`;
    case 'list':
    case 'set':
    case 'option':
      return `${type.kind}<${describeType(type.item)}>`;
    case 'map':
      return `map<${type.key}, ${describeType(type.value)}>`;
    case 'ref':
      return type.name === '?' ? 'unknown' : type.name;
  }
}
