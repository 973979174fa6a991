import { compareBytes, encodeCanonical } from './canonical-cbor.js';
import { type CborValue, Dec128 } from './cbor-value.js';
import { pointer } from './diagnostic.js';
import { checkRange, compareOrdered, describeKey, fail, isRecord, keyOf, kindOf, toInteger } from './expr-values.js';

/** The operators of AIR v1 expressions. */
export const OPERATORS = [
  'len',
  'get',
  'has',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'and',
  'or',
  'not',
  'concat',
  'add',
  'sub',
  'mul',
  'div',
  'mod',
  'starts_with',
  'ends_with',
  'contains',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** How many arguments each operator takes: [least, most]. */
const ARITY: Partial<Record<Operator, [number, number]>> = {
  len: [1, 1],
  get: [2, 2],
  has: [2, 2],
  eq: [2, 2],
  ne: [2, 2],
  lt: [2, 2],
  le: [2, 2],
  gt: [2, 2],
  ge: [2, 2],
  not: [1, 1],
  sub: [2, 2],
  div: [2, 2],
  mod: [2, 2],
  starts_with: [2, 2],
  ends_with: [2, 2],
  contains: [2, 2],
  and: [1, Infinity],
  or: [1, Infinity],
  concat: [1, Infinity],
  add: [1, Infinity],
  mul: [1, Infinity],
};

/**
 * Evaluates an operator expression; `evaluateArg` evaluates one argument, one level deeper, at its JSON pointer.
 */
export function evaluateOp(op: unknown, args: unknown, path: string, evaluateArg: (expr: unknown, at: string) => CborValue): CborValue {
  if (typeof op !== 'string' || !(OPERATORS as readonly string[]).includes(op))
    fail('expr.op', `unknown operator ${JSON.stringify(op)}; expected one of ${OPERATORS.join(', ')}`, pointer(path, 'op'));
  const operator = op as Operator;
  if (!Array.isArray(args)) fail('expr.shape', `"${operator}" needs "args": an array of expressions`, pointer(path, 'args'));
  const [min, max] = ARITY[operator]!;
  if (args.length < min || args.length > max) {
    fail(
      'expr.arity',
      `"${operator}" takes ${min === max ? min : `${min} or more`} argument${min === 1 && max === 1 ? '' : 's'}; found ${args.length}`,
      pointer(path, 'args'),
    );
  }
  const at = (i: number) => pointer(pointer(path, 'args'), i);
  const arg = (i: number) => evaluateArg(args[i], at(i));
  switch (operator) {
    case 'and':
    case 'or': {
      for (let i = 0; i < args.length; i++) {
        const value = arg(i);
        if (typeof value !== 'boolean') fail('expr.type', `"${operator}" takes bools; argument ${i} is ${kindOf(value)}`, at(i));
        if (operator === 'and' ? !value : value) return value;
      }
      return operator === 'and';
    }
    case 'not': {
      const value = arg(0);
      return typeof value === 'boolean' ? !value : fail('expr.type', `"not" takes a bool; found ${kindOf(value)}`, at(0));
    }
    case 'eq':
    case 'ne': {
      const same = compareBytes(encodeCanonical(arg(0)), encodeCanonical(arg(1))) === 0;
      return operator === 'eq' ? same : !same;
    }
    case 'lt':
    case 'le':
    case 'gt':
    case 'ge': {
      const c = compareOrdered(arg(0), arg(1), operator, path);
      return operator === 'lt' ? c < 0 : operator === 'le' ? c <= 0 : operator === 'gt' ? c > 0 : c >= 0;
    }
    case 'len': {
      const value = arg(0);
      if (typeof value === 'string') return [...value].length;
      if (Array.isArray(value) || value instanceof Uint8Array) return value.length;
      if (value instanceof Map) return value.size;
      if (isRecord(value)) return Object.keys(value).length;
      return fail('expr.type', `"len" takes text, bytes, a list, set, map or record; found ${kindOf(value)}`, at(0));
    }
    case 'get':
    case 'has': {
      const container = arg(0);
      const key = arg(1);
      let found: CborValue | undefined;
      if (Array.isArray(container)) {
        if (operator === 'has') return container.some((item) => keyOf(item, path) === keyOf(key, path));
        const index = toInteger(key);
        if (index === undefined) fail('expr.type', `"get" on a list takes an integer index; found ${kindOf(key)}`, at(1));
        found = index >= 0n && index < BigInt(container.length) ? container[Number(index)] : undefined;
      } else if (container instanceof Map) {
        found = [...container.entries()].find(([k]) => keyOf(k, path) === keyOf(key, path))?.[1];
      } else if (isRecord(container)) {
        if (typeof key !== 'string') fail('expr.type', `"${operator}" on a record takes a text key; found ${kindOf(key)}`, at(1));
        found = Object.hasOwn(container, key) ? container[key] : undefined;
      } else fail('expr.type', `"${operator}" takes a record, map or list; found ${kindOf(container)}`, at(0));
      if (operator === 'has') return found !== undefined;
      return found ?? fail('expr.missing-key', `"get": no entry for ${describeKey(key)}`, at(1));
    }
    case 'concat': {
      const values = args.map((_, i) => arg(i));
      if (values.every((v) => typeof v === 'string')) return (values as string[]).join('');
      if (values.every((v) => Array.isArray(v))) return (values as CborValue[][]).flat();
      if (values.every((v) => v instanceof Uint8Array)) {
        const total = (values as Uint8Array[]).reduce((n, b) => n + b.length, 0);
        const out = new Uint8Array(total);
        let offset = 0;
        for (const b of values as Uint8Array[]) {
          out.set(b, offset);
          offset += b.length;
        }
        return out;
      }
      return fail(
        'expr.type',
        `"concat" takes all text, all lists or all bytes; found ${values.map(kindOf).join(', ')}`,
        pointer(path, 'args'),
      );
    }
    case 'add':
    case 'sub':
    case 'mul':
    case 'div':
    case 'mod': {
      const numbers = args.map((_, i) => {
        const value = arg(i);
        const n = toInteger(value);
        if (n === undefined) {
          const hint = value instanceof Dec128 ? ' (arithmetic on dec128 is not in AIR v1; compare with lt/le/gt/ge)' : '';
          fail('expr.type', `"${operator}" takes integers; argument ${i} is ${kindOf(value)}${hint}`, at(i));
        }
        return n;
      });
      let result = numbers[0]!;
      for (let i = 1; i < numbers.length; i++) {
        const n = numbers[i]!;
        if ((operator === 'div' || operator === 'mod') && n === 0n) fail('expr.division-by-zero', `"${operator}" by zero`, at(i));
        result =
          operator === 'add'
            ? result + n
            : operator === 'sub'
              ? result - n
              : operator === 'mul'
                ? result * n
                : operator === 'div'
                  ? result / n
                  : result % n;
        checkRange(result, path);
      }
      return checkRange(result, path);
    }
    case 'starts_with':
    case 'ends_with':
    case 'contains': {
      const haystack = arg(0);
      const needle = arg(1);
      if (operator === 'contains' && Array.isArray(haystack)) return haystack.some((item) => keyOf(item, path) === keyOf(needle, path));
      if (typeof haystack !== 'string' || typeof needle !== 'string') {
        fail(
          'expr.type',
          `"${operator}" takes two texts${operator === 'contains' ? ' (or a list and an element)' : ''}; found ${kindOf(haystack)} and ${kindOf(needle)}`,
          pointer(path, 'args'),
        );
      }
      return operator === 'starts_with'
        ? haystack.startsWith(needle)
        : operator === 'ends_with'
          ? haystack.endsWith(needle)
          : haystack.includes(needle);
    }
  }
}
