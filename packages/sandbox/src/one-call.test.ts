import { afterAll, describe, expect, it } from 'vitest';
import { runOneCall } from './one-call.js';
import { createSandbox } from './sandbox.js';
import type { ToolHandler } from './tool-call.js';

const sandbox = createSandbox({ poolSize: 1 });
afterAll(() => sandbox.close());

const limits = { wallMs: 20_000, cpuMs: 10_000, calls: 10, messageBytes: 1000, outputBytes: 500 };

/** What a run's result says, without its timings. */
function shape(result: Awaited<ReturnType<typeof runOneCall>>) {
  return {
    status: result.status,
    value: result.value,
    error: result.error === undefined ? undefined : `${result.error.name}: ${result.error.message}`,
    calls: result.stats.calls,
    recorded: result.calls.map(({ name, ok, value }) => ({ name, ok, value })),
  };
}

const CASES: [string, ToolHandler, unknown[]][] = [
  ['a value', (a, b) => ({ got: [a, b] }), ['text', 2]],
  ['nothing', () => undefined, []],
  [
    'a thrown error',
    () => {
      throw Object.assign(new Error('write_file: "x" is excluded'), { name: 'ToolError' });
    },
    ['x'],
  ],
  [
    'a plain Error, async',
    async () => {
      throw new TypeError('bad input');
    },
    [null],
  ],
  ['arguments over the message limit', () => true, ['x'.repeat(2000)]],
  ['a result over the message limit', () => 'y'.repeat(2000), []],
  ['a result over the output limit', () => 'z'.repeat(700), []],
  ['a value that is not plain JSON', () => new Map(), []],
  ['text with quotes, new lines and odd characters', (s) => s, ['"quoted"\n\u2028\ud83d\ude00 \\ end']],
];

describe('runOneCall', () => {
  it.each(CASES)('gives what the one-line program gives in an isolate: %s', async (_, handler, args) => {
    const code = `return await f(${args.map((arg) => JSON.stringify(arg)).join(', ')});`;
    const inIsolate = await sandbox.run({ code, functions: { f: handler }, limits, seed: 1, clock: 0 });
    const onHost = await runOneCall({ name: 'f', args }, { functions: { f: handler }, limits });
    expect(shape(onHost)).toEqual(shape(inIsolate));
  });
});
