import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult, RunStatus } from './run-result.js';
import { createSandbox, type RunRequest } from './sandbox.js';

const sandbox = createSandbox({ poolSize: 2, limits: { wallMs: 3_000, cpuMs: 2_000, memoryMb: 32 } });
afterAll(() => sandbox.close());

const tools = {
  echo: (x: unknown) => x,
  boom: () => {
    throw new Error(`failed reading ${process.cwd()}/secret/config.json at Object.<anonymous> (/srv/app/host.js:10:5)`);
  },
  reject: async () => {
    throw new TypeError('async failure in /usr/lib/node/internal.js');
  },
  never: () => new Promise(() => undefined),
  notJson: () => () => 1,
  bigint: () => 10n,
  cyclic: () => {
    const a: Record<string, unknown> = {};
    a.self = a;
    return a;
  },
  huge: () => 'x'.repeat(5_000_000),
  buffer: () => Buffer.from('file contents'),
  typedInObject: () => ({ path: 'a', bytes: new Uint8Array(3) }),
};

type Case = [name: string, code: string, statuses: RunStatus[], extra?: Partial<RunRequest> & { check?: (r: RunResult) => void }];

const cases: Case[] = [
  ['process is absent', 'return typeof process', ['ok'], { check: (r) => expect(r.value).toBe('undefined') }],
  ['process.exit is not reachable', 'process.exit(1)', ['error']],
  ['require is refused before running', "const fs = require('fs')", ['rejected']],
  ['static import is refused', "import fs from 'node:fs'", ['rejected']],
  ['dynamic import() is refused', "await import('node:fs')", ['rejected']],
  ['import.meta is refused', 'return import.meta.url', ['rejected']],
  ['require through eval', "return eval('require')('fs')", ['error']],
  ['Function constructor', "return new Function('return typeof process')()", ['ok'], { check: (r) => expect(r.value).toBe('undefined') }],
  [
    'async constructor chain to the global',
    "return (async () => {}).constructor('return typeof this.process')().then(x => x)",
    ['ok'],
    { check: (r) => expect(r.value).toBe('undefined') },
  ],
  [
    'tool function constructor chain',
    "const G = echo.constructor('return this')(); return [typeof G.process, typeof G.require, typeof G.__cairn_call]",
    ['ok'],
    { check: (r) => expect(r.value).toEqual(['undefined', 'undefined', 'undefined']) },
  ],
  [
    'Error.prepareStackTrace call sites',
    "Error.prepareStackTrace = (_, sites) => sites.map(s => [typeof s.getThis(), typeof s.getFunction()]); return new Error('x').stack",
    ['ok'],
    { check: (r) => expect(new Set((r.value as string[][]).flat())).toEqual(new Set(['undefined'])) },
  ],
  [
    'prepareStackTrace on a thrown error',
    "Error.prepareStackTrace = () => { throw new Error('nested') }; throw new Error('outer')",
    ['error'],
  ],
  [
    'the host reference is gone from the global',
    'return [typeof __cairn_call, typeof __cairn_log, typeof globalThis.__cairn_call]',
    ['ok'],
    { check: (r) => expect(r.value).toEqual(['undefined', 'undefined', 'undefined']) },
  ],
  [
    'calling the finisher directly',
    'return await __cairn.finish(async () => 42)',
    ['ok'],
    { check: (r) => expect(typeof r.value).toBe('string') },
  ],
  ['a proxy result whose traps throw', "return new Proxy({}, { ownKeys() { throw new Error('trap') } })", ['error']],
  ['a getter on the result that never returns', 'return { get x() { for (;;) {} } }', ['timeout']],
  ['toJSON that throws', "return { toJSON() { throw new Error('no') } }", ['error']],
  ['a cyclic result', 'const a = {}; a.a = a; return a', ['error']],
  ['a function result', 'return () => 1', ['error']],
  ['a BigInt result', 'return 10n', ['error']],
  [
    'prototype pollution stays in the run',
    'Object.prototype.polluted = 1; Array.prototype.polluted = 2; globalThis.leaked = 3; return ({}).polluted',
    ['ok'],
    { check: (r) => expect(r.value).toBe(1) },
  ],
  ['polluted Array.prototype.toJSON before a call', "Array.prototype.toJSON = () => 'not an array'; return await echo(1)", ['error']],
  [
    'replaced JSON before a call',
    "JSON.stringify = () => '[\"forged\"]'; JSON.parse = () => 'forged'; return await echo('real')",
    ['ok'],
    { check: (r) => expect(r.value).toBe('real') },
  ],
  [
    'a string too large for the heap',
    "return 'x'.repeat(2 ** 29).length",
    ['error'],
    { check: (r) => expect(r.error?.name).toBe('RangeError') },
  ],
  ['a result larger than the output limit', "return 'x'.repeat(2_000_000)", ['limit'], { limits: { wallMs: 60_000, cpuMs: 30_000 } }],
  ['deep recursion', 'function f() { return f() } return f()', ['error']],
  ['deep nesting in the result', 'let a = []; for (let i = 0; i < 1e6; i++) a = [a]; return a', ['memory']],
  ['an array memory bomb', 'const a = []; for (;;) a.push(new Array(1e5).fill(7))', ['memory']],
  ['a Map memory bomb', 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i })', ['memory']],
  ['a billion-element array, fatal to V8 itself', 'return new Array(1e9).fill(0).length', ['memory']],
  ['a result too large to copy out of the heap', "return 'x'.repeat(3e7)", ['memory']],
  [
    'resizable ArrayBuffer growth',
    'const b = new ArrayBuffer(8, { maxByteLength: 2 ** 31 }); b.resize(2 ** 31); return b.byteLength',
    ['error'],
  ],
  ['ArrayBuffer transfer to a larger size', 'const b = new ArrayBuffer(8); return b.transfer(2 ** 31).byteLength', ['error']],
  [
    'a huge ArrayBuffer',
    'return new ArrayBuffer(2 ** 32).byteLength',
    ['error'],
    { check: (r) => expect(r.error?.name).toBe('RangeError') },
  ],
  [
    'typed array copies',
    'const parts = []; for (;;) parts.push(new Uint8Array(1 << 24).slice())',
    ['error'],
    { check: (r) => expect(r.error?.message).toMatch(/allocation failed/) },
  ],
  ['an infinite loop', 'for (;;) {}', ['timeout']],
  ['a microtask loop', 'for (;;) await null', ['timeout']],
  ['a promise chain that never settles', 'await new Promise(() => {})', ['timeout']],
  ['Atomics.wait', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)', ['error']],
  [
    'no SharedArrayBuffer, Atomics or WebAssembly',
    'return [typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly]',
    ['ok'],
    { check: (r) => expect(r.value).toEqual(['undefined', 'undefined', 'undefined']) },
  ],
  ['no timers', 'setTimeout(() => {}, 10)', ['error']],
  [
    'a handler that throws: catchable, no host paths',
    'try { await boom() } catch (e) { return [e.name, e.message] }',
    ['ok'],
    {
      check: (r) => {
        expect((r.value as string[])[0]).toBe('ToolError');
        expect((r.value as string[])[1]).not.toMatch(/\/srv|\/secret|cwd|\/work/);
      },
    },
  ],
  [
    'a handler that rejects',
    'try { await reject() } catch (e) { return e.message }',
    ['ok'],
    { check: (r) => expect(r.value).toBe('async failure in [host]') },
  ],
  [
    'an uncaught handler error ends the run as an error',
    'await boom()',
    ['error'],
    { check: (r) => expect(r.error?.name).toBe('ToolError') },
  ],
  ['a handler that never answers', 'await never()', ['timeout']],
  [
    'a handler returning a function, a BigInt, a cycle',
    'const out = []; for (const f of [notJson, bigint, cyclic]) { try { await f() } catch (e) { out.push(e.name) } } return out',
    ['ok'],
    { check: (r) => expect(r.value).toEqual(['ToolError', 'ToolError', 'ToolError']) },
  ],
  [
    'a handler result over the message limit',
    'try { await huge() } catch (e) { return e.message }',
    ['ok'],
    {
      limits: { messageBytes: 1_000_000, wallMs: 60_000, cpuMs: 30_000 },
      check: (r) => expect(r.value).toMatch(/more than 1000000 bytes/),
    },
  ],
  [
    'arguments over the message limit',
    "try { await echo('x'.repeat(2_000_000)) } catch (e) { return e.name }",
    ['ok'],
    { limits: { messageBytes: 1_000_000, wallMs: 60_000, cpuMs: 30_000 }, check: (r) => expect(r.value).toBe('ToolError') },
  ],
  [
    'arguments that are not JSON',
    'try { await echo(1n) } catch (e) { return e.name }',
    ['ok'],
    { check: (r) => expect(r.value).toBe('TypeError') },
  ],
  ['a log flood', "for (;;) console.log('spam spam spam spam')", ['limit'], { limits: { wallMs: 120_000, cpuMs: 60_000 } }],
  [
    'a call flood',
    'for (;;) await echo(1)',
    ['limit'],
    { limits: { calls: 100, wallMs: 120_000, cpuMs: 60_000 }, check: (r) => expect(r.calls.length).toBe(100) },
  ],
  [
    'a flood of large calls is not kept in the host',
    "const big = 'x'.repeat(16_400); for (let i = 0; i < 50; i++) await echo(big); return 1",
    ['ok'],
    {
      limits: { wallMs: 120_000, cpuMs: 60_000 },
      check: (r) => {
        expect(r.calls.length).toBe(50);
        expect(r.calls[0]!.args).toEqual(['[16404 bytes of arguments not kept]']);
        expect(r.calls[0]!.value).toBe('[16402 bytes of result not kept]');
      },
    },
  ],
  [
    'a handler returning a Buffer or a typed array',
    'const out = []; for (const f of [buffer, typedInObject]) { try { await f() } catch (e) { out.push(e.name + ": " + e.message) } } return out',
    ['ok'],
    {
      check: (r) =>
        expect(r.value).toEqual([
          expect.stringMatching(/^ToolError: buffer returned a value that is not plain JSON: the result is binary data \(Buffer\)/),
          expect.stringMatching(/^ToolError: typedInObject returned a value that is not plain JSON: the result at \.bytes is binary data/),
        ]),
    },
  ],
  ['calling a function that was not given', 'await read_file("x")', ['error']],
  ['overwriting a tool function', 'echo = null', ['error']],
  ['a thrown non-error with hostile toString', 'throw { get name() { throw 1 }, toString() { throw 2 } }', ['error']],
  ['throwing a Symbol', "throw Symbol('s')", ['error']],
  [
    'a syntax error, located',
    'const x = 1;\nconst = 2;',
    ['rejected'],
    { check: (r) => expect([r.error?.line, r.error?.column]).toEqual([2, 7]) },
  ],
  ['a runtime error, located', 'const a = 1;\n\nundefined.x', ['error'], { check: (r) => expect(r.error?.line).toBe(3) }],
];

const probe =
  'return [typeof process, typeof require, ({}).polluted ?? null, [].polluted ?? null, globalThis.leaked ?? null, typeof __cairn_call]';

describe('hostile programs: every run ends cleanly, the host lives, the next run is unaffected', () => {
  it('the cases end in every way a run can end', () => {
    const covered = new Set(cases.flatMap(([, , statuses]) => statuses));
    for (const status of ['ok', 'error', 'timeout', 'memory', 'limit', 'rejected'] as RunStatus[])
      expect(covered, status).toContain(status);
    expect(
      cases.every(([, , statuses]) => statuses.length === 1),
      'each case says which outcome is right',
    ).toBe(true);
  });

  it.each(cases)('%s', async (_name, code, statuses, extra = {}) => {
    const { check, ...request } = extra;
    const result = await sandbox.run({ code, functions: tools, ...request });
    expect(statuses, JSON.stringify(result.error)).toContain(result.status);
    if (result.status !== 'ok') expect(typeof result.error?.message).toBe('string');
    check?.(result);
    const after = await sandbox.run({ code: probe });
    expect(after.status).toBe('ok');
    expect(after.value).toEqual(['undefined', 'undefined', null, null, null, 'undefined']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
