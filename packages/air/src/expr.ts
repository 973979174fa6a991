import { BASE64_PATTERN, bytesFromBase64, bytesFromHex } from './bytes-text.js';
import type { CborValue } from './cbor-value.js';
import { parseDec128 } from './dec128.js';
import { type AirResult, diagnostic, pointer } from './diagnostic.js';
import { evaluateOp } from './expr-operators.js';
import { parseExprRef } from './expr-refs.js';
import { checkRange, ExprFailure, fail, isRecord, keyOf } from './expr-values.js';
import { isHash } from './node-hash.js';
import { isWellFormedString } from './utf8.js';

/** What references resolve to while evaluating: the plan input, variables, and step outputs (canonical values). */
export interface ExprEnv {
  input?: CborValue;
  vars?: Readonly<Record<string, CborValue>>;
  steps?: Readonly<Record<string, CborValue>>;
}

/** How deep expressions may nest. */
export const MAX_EXPR_DEPTH = 64;

/**
 * Evaluates an expression (its JSON text form) in an environment. Total and deterministic: any problem —
 * a malformed expression, a missing reference, a type mismatch, division by zero, overflow beyond
 * [-2^63, 2^64-1], nesting deeper than 64 — comes back as a diagnostic with the JSON pointer of the
 * sub-expression; nothing is thrown.
 */
export function evaluateExpr(expr: unknown, env: ExprEnv = {}, path = ''): AirResult<CborValue> {
  try {
    return { ok: true, value: evaluate(expr, env, path, 0) };
  } catch (error) {
    if (error instanceof ExprFailure) return { ok: false, diagnostics: [error.diagnostic] };
    const message =
      error instanceof RangeError
        ? 'expression too large to evaluate'
        : `expression could not be evaluated: ${String((error as Error)?.message ?? error)}`;
    return { ok: false, diagnostics: [diagnostic('expr.internal', message, path)] };
  }
}

function evaluate(expr: unknown, env: ExprEnv, path: string, depth: number): CborValue {
  if (depth > MAX_EXPR_DEPTH) fail('expr.too-deep', `expressions may nest at most ${MAX_EXPR_DEPTH} levels`, path);
  if (!isRecord(expr))
    fail('expr.shape', 'an expression is an object such as {"ref":"@var:x"}, {"text":"…"} or {"op":"eq","args":[…]}', path);
  const keys = Object.keys(expr);
  if ('op' in expr) {
    if (keys.some((k) => k !== 'op' && k !== 'args')) fail('expr.shape', 'an operator expression has only "op" and "args"', path);
    return evaluateOp(expr.op, expr.args, path, (sub, at) => evaluate(sub, env, at, depth + 1));
  }
  if (keys.length !== 1)
    fail(
      'expr.shape',
      `an expression has exactly one key; found ${keys.length === 0 ? 'none' : keys.map((k) => `"${k}"`).join(', ')}`,
      path,
    );
  const key = keys[0]!;
  const body = expr[key];
  const at = pointer(path, key);
  switch (key) {
    case 'ref':
      return resolveRef(body, env, at);
    case 'null':
      if (!isRecord(body) || Object.keys(body).length > 0) fail('expr.const', 'null is written {"null":{}}', at);
      return null;
    case 'bool':
      return typeof body === 'boolean' ? body : fail('expr.const', 'a bool constant is true or false', at);
    case 'int':
    case 'nat':
    case 'time_ns':
    case 'duration_ns': {
      const n =
        typeof body === 'number' && Number.isSafeInteger(body)
          ? BigInt(body)
          : typeof body === 'string' && /^-?(0|[1-9]\d*)$/.test(body)
            ? BigInt(body)
            : typeof body === 'bigint'
              ? body
              : undefined;
      if (n === undefined) fail('expr.const', `a ${key} constant is an integer`, at);
      if ((key === 'nat' || key === 'time_ns') && n < 0n) fail('expr.const', `a ${key} constant cannot be negative`, at);
      return checkRange(n, at);
    }
    case 'dec128': {
      const dec = typeof body === 'string' ? parseDec128(body) : undefined;
      return dec ?? fail('expr.const', 'a dec128 constant is a decimal string such as "0.2"', at);
    }
    case 'text':
      if (typeof body !== 'string' || !isWellFormedString(body)) fail('expr.const', 'a text constant is a string', at);
      return body;
    case 'bytes_b64':
      if (typeof body !== 'string' || !BASE64_PATTERN.test(body)) fail('expr.const', 'a bytes constant is base64', at);
      return bytesFromBase64(body);
    case 'hash':
      if (!isHash(body)) fail('expr.const', 'a hash constant is "sha256:<64 hex digits>"', at);
      return bytesFromHex(body.slice(7));
    case 'uuid':
      if (typeof body !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(body))
        fail('expr.const', 'a uuid constant is the lowercase 8-4-4-4-12 form', at);
      return bytesFromHex(body.replace(/-/g, ''));
    case 'record': {
      if (!isRecord(body)) fail('expr.shape', 'a record expression maps field names to expressions', at);
      const out: Record<string, CborValue> = {};
      for (const [field, sub] of Object.entries(body))
        Object.defineProperty(out, field, {
          value: evaluate(sub, env, pointer(at, field), depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    }
    case 'list':
    case 'set': {
      if (!Array.isArray(body)) fail('expr.shape', `a ${key} expression is an array of expressions`, at);
      const items = body.map((sub, i) => evaluate(sub, env, pointer(at, i), depth + 1));
      if (key === 'list') return items;
      const unique = new Map<string, CborValue>();
      for (const item of items) unique.set(keyOf(item, at), item);
      return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
    }
    case 'map': {
      if (!Array.isArray(body)) fail('expr.shape', 'a map expression is an array of {"key":…, "value":…}', at);
      const out = new Map<CborValue, CborValue>();
      const seen = new Set<string>();
      body.forEach((entry, i) => {
        const entryAt = pointer(at, i);
        if (!isRecord(entry) || !('key' in entry) || !('value' in entry) || Object.keys(entry).length !== 2)
          fail('expr.shape', 'a map entry is {"key":…, "value":…}', entryAt);
        const k = evaluate(entry.key, env, pointer(entryAt, 'key'), depth + 1);
        if (!(typeof k === 'string' || typeof k === 'number' || typeof k === 'bigint' || k instanceof Uint8Array))
          fail('expr.type', 'map keys are integers, text, uuids or hashes', pointer(entryAt, 'key'));
        const id = keyOf(k, entryAt);
        if (seen.has(id)) fail('expr.duplicate-key', 'this key appears twice in the map', pointer(entryAt, 'key'));
        seen.add(id);
        out.set(k, evaluate(entry.value, env, pointer(entryAt, 'value'), depth + 1));
      });
      return [...out.keys()].every((k) => typeof k === 'string') ? (Object.fromEntries(out) as Record<string, CborValue>) : out;
    }
    case 'variant': {
      if (!isRecord(body) || typeof body.tag !== 'string' || Object.keys(body).some((k) => k !== 'tag' && k !== 'value'))
        fail('expr.shape', 'a variant expression is {"tag":"<alternative>", "value"?: …}', at);
      return { $tag: body.tag, $value: 'value' in body ? evaluate(body.value, env, pointer(at, 'value'), depth + 1) : {} };
    }
    default:
      return fail('expr.unknown', `unknown expression "${key}"`, path);
  }
}

function resolveRef(text: unknown, env: ExprEnv, path: string): CborValue {
  const ref = typeof text === 'string' ? parseExprRef(text) : undefined;
  if (ref === undefined) fail('expr.ref', 'a reference is "@plan.input[.field…]", "@var:<name>[.field…]" or "@step:<id>[.field…]"', path);
  let value: CborValue | undefined;
  if (ref.root === 'input') value = env.input;
  else {
    const table = ref.root === 'var' ? env.vars : env.steps;
    value = table !== undefined && Object.hasOwn(table, ref.name) ? table[ref.name] : undefined;
  }
  if (value === undefined)
    fail(
      'expr.missing-ref',
      `${text as string}: ${ref.root === 'input' ? 'the plan has no input' : `no ${ref.root === 'var' ? 'variable' : 'step output'} "${ref.name}"`}`,
      path,
    );
  for (const field of ref.path) {
    const next = fieldOf(value, field);
    if (next === undefined) fail('expr.missing-ref', `${text as string}: no field "${field}"`, path);
    value = next;
  }
  return value;
}

function fieldOf(value: CborValue, field: string): CborValue | undefined {
  if (value instanceof Map) return value.get(field);
  if (isRecord(value)) return Object.hasOwn(value, field) ? value[field] : undefined;
  return undefined;
}
