import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from './sandbox.js';

const sandbox = createSandbox({ poolSize: 2 });
afterAll(() => sandbox.close());

describe('sandbox contract', () => {
  it('runs a program with tool functions, input, logs and top-level await', async () => {
    const written: Record<string, string> = {};
    const result = await sandbox.run({
      code: `const text = await read_file(input.path);
log('read ' + text.length + ' bytes');
await write_file(input.path, text.toUpperCase());
console.log('done', { n: 1 });
return { length: text.length };`,
      input: { path: 'src/a.ts' },
      functions: {
        read_file: async (path: unknown) => `contents of ${String(path)}`,
        write_file: (path: unknown, content: unknown) => {
          written[String(path)] = String(content);
          return true;
        },
        log: () => true,
      },
    });
    expect(result.status).toBe('ok');
    expect(result.value).toEqual({ length: 20 });
    expect(written).toEqual({ 'src/a.ts': 'CONTENTS OF SRC/A.TS' });
    expect(result.logs).toEqual(['done {"n":1}']);
    expect(result.calls.map((c) => [c.name, c.args, c.ok])).toEqual([
      ['read_file', ['src/a.ts'], true],
      ['log', ['read 20 bytes'], true],
      ['write_file', ['src/a.ts', 'CONTENTS OF SRC/A.TS'], true],
    ]);
    expect(result.stats.calls).toBe(3);
    expect(result.stats.wallMs).toBeGreaterThan(0);
    expect(result.stats.heapBytes).toBeGreaterThan(0);
  });

  it('names what the program threw when it is not an Error, never "undefined: undefined"', async () => {
    const thrown = async (code: string) => (await sandbox.run({ code })).error;
    expect(await thrown('throw {};')).toMatchObject({ name: 'Error', message: 'the program threw a value that is not an Error: {}' });
    expect(await thrown('throw undefined;')).toMatchObject({ name: 'Error', message: 'the program threw undefined' });
    expect(await thrown('throw null;')).toMatchObject({ message: 'the program threw null' });
    expect(await thrown('throw 42;')).toMatchObject({ message: 'the program threw 42' });
    expect(await thrown("throw { code: 7, detail: 'x' };")).toMatchObject({
      message: 'the program threw a value that is not an Error: {"code":7,"detail":"x"}',
    });
    expect(await thrown("throw 'plain text';")).toMatchObject({ name: 'Error', message: 'plain text' });
    expect(await thrown("throw { name: 'Custom', message: 'with a message' };")).toMatchObject({
      name: 'Custom',
      message: 'with a message',
    });
    expect(await thrown("\nthrow new RangeError('out');")).toMatchObject({ name: 'RangeError', message: 'out', line: 2 });
  });

  it('is deterministic: Math.random and Date come from the seed and clock', async () => {
    const code = 'return [Math.random(), Math.random(), Date.now(), new Date().toISOString(), typeof performance]';
    const a = await sandbox.run({ code, seed: 7, clock: 1_700_000_000_000 });
    const b = await sandbox.run({ code, seed: 7, clock: 1_700_000_000_000 });
    const c = await sandbox.run({ code, seed: 8, clock: 1_700_000_000_000 });
    expect(a.value).toEqual(b.value);
    expect((a.value as unknown[])[0]).not.toEqual((c.value as unknown[])[0]);
    expect((a.value as unknown[]).slice(2)).toEqual([1_700_000_000_000, '2023-11-14T22:13:20.000Z', 'undefined']);
  });

  it('check reports syntax errors and forbidden constructs with line and column, in a form a model can repair', () => {
    expect(sandbox.check('return 1')).toEqual({ ok: true });
    expect(sandbox.check('const a = 1;\nconst fs = require("fs");\nimport x from "y";')).toEqual({
      ok: false,
      problems: [
        { kind: 'forbidden', message: '"require" is not available: the tool functions are already globals', line: 2, column: 12 },
        {
          kind: 'forbidden',
          message: '"import" is not available: the tool functions are already globals (read_file, write_file, …)',
          line: 3,
          column: 1,
        },
      ],
      report:
        'line 2, column 12: "require" is not available: the tool functions are already globals\nline 3, column 1: "import" is not available: the tool functions are already globals (read_file, write_file, …)',
    });
    const syntax = sandbox.check('if (x {');
    expect(syntax.ok === false && syntax.problems[0]).toEqual({ kind: 'syntax', message: 'Unexpected token', line: 1, column: 7 });
  });

  it('a rejected program never reaches a child', async () => {
    const result = await sandbox.run({ code: 'import fs from "fs"' });
    expect(result).toMatchObject({ status: 'rejected', error: { name: 'ForbiddenError', line: 1, column: 1 }, stats: { wallMs: 0 } });
  });

  it('refuses bad requests with SandboxError codes', async () => {
    await expect(sandbox.run({ code: 1 as never })).rejects.toMatchObject({ code: 'SANDBOX_INVALID_REQUEST' });
    await expect(sandbox.run({ code: '', functions: { 'bad name': () => 1 } })).rejects.toMatchObject({ code: 'SANDBOX_INVALID_REQUEST' });
    await expect(sandbox.run({ code: '', limits: { wallMs: -1 } })).rejects.toMatchObject({ code: 'SANDBOX_INVALID_LIMITS' });
    await expect(sandbox.run({ code: '', input: 10n as never })).rejects.toMatchObject({ code: 'SANDBOX_INVALID_REQUEST' });
    const closed = createSandbox({ poolSize: 1 });
    await closed.close();
    await expect(closed.run({ code: 'return 1' })).rejects.toMatchObject({ code: 'SANDBOX_CLOSED' });
  });

  it('a child killed mid-run makes that run "crashed"; the next run is fine', async () => {
    let inside: () => void = () => undefined;
    const started = new Promise<void>((r) => (inside = r));
    const running = sandbox.run({
      code: 'await started(); for (;;) {}',
      functions: { started: () => inside() },
      limits: { wallMs: 60_000, cpuMs: 60_000 },
    });
    await started;
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    for (const pid of children) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    const crashed = await running;
    expect(crashed.status).toBe('crashed');
    expect(crashed.error?.message).toMatch(/killed by SIGKILL/);
    const next = await sandbox.run({ code: 'return 2 + 2' });
    expect(next).toMatchObject({ status: 'ok', value: 4 });
  });

  it('children killed while idle, or during a host call, are replaced', async () => {
    const childPids = () =>
      execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    const killChildren = () => {
      const pids = childPids();
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      return pids;
    };
    // Waits for the event (the killed children reaped by the pool), not for a length of time.
    const childrenGone = async (pids: number[]) => {
      while (childPids().some((pid) => pids.includes(pid))) await new Promise((r) => setImmediate(r));
    };
    await sandbox.run({ code: 'return 1' });
    await childrenGone(killChildren());
    expect(await sandbox.run({ code: 'return 1' })).toMatchObject({ status: 'ok', value: 1 });
    let release: () => void = () => undefined;
    let called: () => void = () => undefined;
    const inCall = new Promise<void>((r) => (called = r));
    const during = sandbox.run({
      code: 'return await slow()',
      functions: {
        slow: () =>
          new Promise<string>((r) => {
            release = () => r('late');
            called();
          }),
      },
    });
    await inCall;
    killChildren();
    expect((await during).status).toBe('crashed');
    release();
    expect(await sandbox.run({ code: 'return 2' })).toMatchObject({ status: 'ok', value: 2 });
  });

  it('100 concurrent runs on a pool of two all finish', async () => {
    const runs = Array.from({ length: 100 }, (_, i) =>
      sandbox.run({ code: 'return (await double(input)) + 1', input: i, functions: { double: (x: unknown) => Number(x) * 2 } }),
    );
    const results = await Promise.all(runs);
    expect(results.map((r) => r.value)).toEqual(Array.from({ length: 100 }, (_, i) => i * 2 + 1));
  });
});

describe('python engine (Monty)', () => {
  it('runs a program with tool functions, input and print', async () => {
    const result = await sandbox.run({
      engine: 'python',
      code: 'text = read_file(input["path"])\nprint("read", len(text))\n{"upper": text.upper(), "n": len(text)}',
      input: { path: 'a.py' },
      functions: { read_file: (p: unknown) => `x = ${String(p)}` },
    });
    expect(result).toMatchObject({ status: 'ok', value: { upper: 'X = A.PY', n: 8 }, logs: ['read 8'] });
    expect(result.calls.map((c) => c.name)).toEqual(['read_file']);
  });

  it('tool errors are catchable; uncaught errors carry a line', async () => {
    const caught = await sandbox.run({
      engine: 'python',
      code: 'try:\n    boom()\n    r = "no"\nexcept Exception as e:\n    r = str(e)\nr',
      functions: {
        boom: () => {
          throw new Error('nope');
        },
      },
    });
    expect(caught).toMatchObject({ status: 'ok', value: 'nope' });
    const failed = await sandbox.run({ engine: 'python', code: 'x = 1\ny = x / 0' });
    expect(failed).toMatchObject({ status: 'error', error: { name: 'ZeroDivisionError', line: 2 } });
  });

  it('ends as Python does on SystemExit, sys.exit, exit and quit: 0 is a normal end, any other status an error that gives it', async () => {
    const three = await sandbox.run({
      engine: 'python',
      code: 'log("before")\nraise SystemExit(3)\nlog("after")',
      functions: { log: () => null },
    });
    expect(three).toMatchObject({ status: 'error', error: { name: 'SystemExit', message: 'the program exited with status 3', line: 2 } });
    expect(three.calls.map((c) => c.name)).toEqual(['log']);
    for (const code of ['raise SystemExit(0)', 'raise SystemExit', 'import sys\nsys.exit()', 'exit()', 'x = 1\nquit(0)\nx = 2'])
      expect(await sandbox.run({ engine: 'python', code }), code).toMatchObject({ status: 'ok', value: null });
    expect(await sandbox.run({ engine: 'python', code: 'def f():\n    exit(4)\nf()' })).toMatchObject({
      status: 'error',
      error: { name: 'SystemExit', message: 'the program exited with status 4' },
    });
    expect(await sandbox.run({ engine: 'python', code: 'import sys\nsys.exit("no input")' })).toMatchObject({
      status: 'error',
      error: { message: 'the program exited with status 1: no input' },
    });
    const caught = 'try:\n    raise SystemExit(5)\nexcept SystemExit as e:\n    r = "caught " + str(e)\nr';
    expect(await sandbox.run({ engine: 'python', code: caught })).toMatchObject({ status: 'ok', value: 'caught 5' });
  });

  it('limits: time, memory, calls; imports and syntax errors are rejected', async () => {
    expect((await sandbox.run({ engine: 'python', code: 'while True:\n    pass', limits: { cpuMs: 300 } })).status).toBe('timeout');
    expect((await sandbox.run({ engine: 'python', code: 'x = [1]\nwhile True:\n    x = x + x', limits: { memoryMb: 16 } })).status).toBe(
      'memory',
    );
    expect(
      (await sandbox.run({ engine: 'python', code: 'while True:\n    f()', functions: { f: () => 1 }, limits: { calls: 10 } })).status,
    ).toBe('limit');
    expect(await sandbox.run({ engine: 'python', code: 'import os\nos.getcwd()' })).toMatchObject({
      status: 'rejected',
      error: { line: 1, column: 1 },
    });
    expect(await sandbox.run({ engine: 'python', code: 'def f(:\n  pass' })).toMatchObject({
      status: 'rejected',
      error: { name: 'SyntaxError', line: 1, column: 7 },
    });
    expect(await sandbox.run({ engine: 'python', code: 'if True:\n    x = (1,\n    y = 2' })).toMatchObject({
      status: 'rejected',
      error: { line: 3, column: 7 },
    });
    expect(await sandbox.run({ engine: 'python', code: 'secret()' })).toMatchObject({ status: 'error', error: { name: 'NameError' } });
  });
});
