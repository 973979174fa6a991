import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CborValue } from './cbor-value.js';
import { type ExprEnv, evaluateExpr } from './expr.js';
import { OPERATORS } from './expr-operators.js';

const env: ExprEnv = {
  input: { user: { name: 'ada', age: 36 }, tags: ['x', 'y'] },
  vars: { charge_rcpt: { status: 'ok', amount: 1200 }, n: 7, big: 2n ** 62n, url: 'https://news.google.com/rss' },
  steps: { fetch: { status: 200 } },
};
const ok = (expr: unknown) => {
  const result = evaluateExpr(expr, env);
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics));
  return result.value;
};
const ref = (r: string) => ({ ref: r });
const op = (name: string, ...args: unknown[]) => ({ op: name, args });

describe('expressions', () => {
  it('resolves @plan.input, @var and @step references with field paths', () => {
    expect(ok(ref('@plan.input.user.name'))).toBe('ada');
    expect(ok(ref('@var:charge_rcpt.status'))).toBe('ok');
    expect(ok(ref('@step:fetch.status'))).toBe(200);
    expect(ok(ref('@plan.input'))).toEqual(env.input);
  });

  it('evaluates the guard of the seed: charge_rcpt.status == "ok"', () => {
    expect(ok(op('eq', ref('@var:charge_rcpt.status'), { text: 'ok' }))).toBe(true);
  });

  it.each([
    [op('len', { text: 'héllo' }), 5],
    [op('len', ref('@plan.input.tags')), 2],
    [op('get', ref('@plan.input.user'), { text: 'age' }), 36],
    [op('get', ref('@plan.input.tags'), { nat: 1 }), 'y'],
    [op('has', ref('@plan.input.user'), { text: 'email' }), false],
    [op('ne', { int: 1 }, { nat: 1 }), false],
    [op('lt', { int: -3 }, { int: 2 }), true],
    [op('ge', { text: 'b' }, { text: 'a' }), true],
    [op('lt', { dec128: '0.2' }, { dec128: '0.25' }), true],
    [op('le', { int: 1 }, { dec128: '1.0' }), true],
    [op('and', { bool: true }, op('not', { bool: false })), true],
    [op('or', { bool: false }, { bool: false }), false],
    [op('concat', { text: 'a' }, { text: 'b' }, { text: 'c' }), 'abc'],
    [op('concat', { list: [{ int: 1 }] }, { list: [{ int: 2 }] }), [1, 2]],
    [op('add', { int: 1 }, { int: 2 }, ref('@var:n')), 10],
    [op('sub', { int: 1 }, { int: 5 }), -4],
    [op('mul', ref('@var:big'), { int: 2 }), 2n ** 63n],
    [op('div', { int: -7 }, { int: 2 }), -3],
    [op('mod', { int: -7 }, { int: 2 }), -1],
    [op('starts_with', ref('@var:url'), { text: 'https://' }), true],
    [op('ends_with', ref('@var:url'), { text: '/rss' }), true],
    [op('contains', ref('@plan.input.tags'), { text: 'y' }), true],
    [{ record: { a: { int: 1 }, b: { list: [{ bool: true }] } } }, { a: 1, b: [true] }],
    [{ set: [{ int: 2 }, { int: 1 }, { int: 2 }] }, [1, 2]],
    [{ variant: { tag: 'Ok' } }, { $tag: 'Ok', $value: {} }],
    [{ null: {} }, null],
  ])('evaluates case %#', (expr, expected) => {
    expect(ok(expr)).toEqual(expected);
  });

  it.each([
    [ref('@var:missing'), 'expr.missing-ref', '@var:missing: no variable "missing"', '/ref'],
    [ref('@plan.input.user.email'), 'expr.missing-ref', '@plan.input.user.email: no field "email"', '/ref'],
    [ref('var:x'), 'expr.ref', 'a reference is "@plan.input[.field…]", "@var:<name>[.field…]" or "@step:<id>[.field…]"', '/ref'],
    [op('div', { int: 1 }, { int: 0 }), 'expr.division-by-zero', '"div" by zero', '/args/1'],
    [op('mod', { int: 1 }, op('sub', { int: 2 }, { int: 2 })), 'expr.division-by-zero', '"mod" by zero', '/args/1'],
    [
      op('mul', ref('@var:big'), { int: 8 }),
      'expr.overflow',
      'integer overflow: 36893488147419103232 is outside -9223372036854775808..18446744073709551615',
      '',
    ],
    [op('add', { text: 'a' }, { int: 1 }), 'expr.type', '"add" takes integers; argument 0 is text', '/args/0'],
    [
      op('add', { dec128: '1.5' }, { int: 1 }),
      'expr.type',
      '"add" takes integers; argument 0 is a dec128 (arithmetic on dec128 is not in AIR v1; compare with lt/le/gt/ge)',
      '/args/0',
    ],
    [op('lt', { text: 'a' }, { int: 1 }), 'expr.type', '"lt" compares two numbers or two texts; found text and an integer', '/args'],
    [op('and', { bool: true }, { int: 1 }), 'expr.type', '"and" takes bools; argument 1 is an integer', '/args/1'],
    [op('not', { bool: true }, { bool: true }), 'expr.arity', '"not" takes 1 argument; found 2', '/args'],
    [op('eq', { int: 1 }), 'expr.arity', '"eq" takes 2 arguments; found 1', '/args'],
    [op('frobnicate', { int: 1 }), 'expr.op', `unknown operator "frobnicate"; expected one of ${OPERATORS.join(', ')}`, '/op'],
    [op('get', ref('@plan.input.tags'), { nat: 9 }), 'expr.missing-key', '"get": no entry for 9', '/args/1'],
    [{ float: 1.5 }, 'expr.unknown', 'unknown expression "float"', ''],
    [{ text: 'a', int: 1 }, 'expr.shape', 'an expression has exactly one key; found "text", "int"', ''],
    [{ nat: -1 }, 'expr.const', 'a nat constant cannot be negative', '/nat'],
    [
      {
        map: [
          { key: { int: 1 }, value: { int: 1 } },
          { key: { int: 1 }, value: { int: 2 } },
        ],
      },
      'expr.duplicate-key',
      'this key appears twice in the map',
      '/map/1/key',
    ],
  ])('%j is a diagnostic: %s', (expr, code, message, path) => {
    expect(evaluateExpr(expr, env)).toEqual({ ok: false, diagnostics: [{ code, message, path }] });
  });

  it('refuses nesting deeper than 64', () => {
    let deep: unknown = { bool: true };
    for (let i = 0; i < 70; i++) deep = op('not', deep);
    expect(evaluateExpr(deep)).toMatchObject({ ok: false, diagnostics: [{ code: 'expr.too-deep' }] });
  });

  const exprArb: fc.Arbitrary<unknown> = fc.letrec<{ expr: unknown }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small' },
      fc.record({ int: fc.oneof(fc.integer(), fc.constant(2 ** 53 + 2), fc.string()) }),
      fc.record({ nat: fc.integer() }),
      fc.record({ text: fc.string() }),
      fc.record({ bool: fc.oneof(fc.boolean(), fc.integer()) }),
      fc.record({ dec128: fc.oneof(fc.constant('1.5'), fc.string()) }),
      fc.record({ ref: fc.constantFrom('@var:n', '@var:big', '@plan.input.tags', '@var:missing', '@step:fetch.status', 'nonsense') }),
      fc.record({ op: fc.oneof(fc.constantFrom(...OPERATORS), fc.string()), args: fc.array(tie('expr'), { maxLength: 4 }) }),
      fc.record({ list: fc.array(tie('expr'), { maxLength: 3 }) }),
      fc.record({ record: fc.dictionary(fc.string({ maxLength: 3 }), tie('expr'), { maxKeys: 3 }) }),
      fc.anything(),
    ),
  })).expr;

  it('is total: no input throws, and the same input gives the same result', () => {
    fc.assert(
      fc.property(exprArb, (expr) => {
        const first = evaluateExpr(expr, env);
        expect(evaluateExpr(expr, env)).toEqual(first);
        if (first.ok) expect(first.value as CborValue).not.toBeUndefined();
        else expect(first.diagnostics.length).toBe(1);
      }),
      { numRuns: 3000 },
    );
  });
});
