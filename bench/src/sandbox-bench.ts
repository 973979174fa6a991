import { createSandbox } from '@cairn/sandbox';
import { median, scaled } from './measure.js';
import type { BenchRow } from './storage-bench.js';

/** Sandbox figures: a trivial program end to end, one tool-call round trip, 100 concurrent runs. */
export async function benchSandbox(): Promise<BenchRow[]> {
  const sandbox = createSandbox({ poolSize: 2 });
  try {
    for (let i = 0; i < 20; i++) await sandbox.run({ code: 'return 1' });
    const trivial: number[] = [];
    for (let i = 0; i < scaled(200); i++) {
      const start = performance.now();
      const result = await sandbox.run({ code: 'return 1 + 1' });
      trivial.push(performance.now() - start);
      if (result.status !== 'ok') throw new Error(`trivial run failed: ${JSON.stringify(result.error)}`);
    }
    const CALLS = 1000;
    const perCall: number[] = [];
    const empty: number[] = [];
    for (let i = 0; i < scaled(15); i++) {
      let start = performance.now();
      await sandbox.run({
        code: `for (let i = 0; i < ${CALLS}; i++) await ping(i); return 1`,
        functions: { ping: (x: unknown) => x },
        limits: { calls: CALLS },
      });
      perCall.push(performance.now() - start);
      start = performance.now();
      await sandbox.run({ code: `for (let i = 0; i < ${CALLS}; i++) await Promise.resolve(i); return 1` });
      empty.push(performance.now() - start);
    }
    const roundTripUs = ((median(perCall) - median(empty)) / CALLS) * 1000;
    const concurrent: number[] = [];
    for (let i = 0; i < scaled(5); i++) {
      const start = performance.now();
      const results = await Promise.all(
        Array.from({ length: scaled(100) }, (_, n) =>
          sandbox.run({ code: 'return await f(input)', input: n, functions: { f: (x: unknown) => x } }),
        ),
      );
      concurrent.push(performance.now() - start);
      if (results.some((r) => r.status !== 'ok')) throw new Error('a concurrent run failed');
    }
    const concurrentMs = median(concurrent);
    return [
      {
        tree: 'sandbox',
        measure: 'trivial program end to end (warm pool of 2)',
        unit: 'ms',
        cairn: median(trivial),
        others: {},
        goal: '<= 5 ms median',
      },
      {
        tree: 'sandbox',
        measure: 'tool-call round trip (program -> host -> program)',
        unit: 'µs',
        cairn: roundTripUs,
        others: {},
        goal: '<= 150 µs',
      },
      {
        tree: 'sandbox',
        measure: '100 concurrent runs on 2 cores, each with one tool call',
        unit: 'ms',
        cairn: concurrentMs,
        others: { 'runs/s': 100 / (concurrentMs / 1000) },
        goal: 'all finish',
      },
    ];
  } finally {
    await sandbox.close();
  }
}
