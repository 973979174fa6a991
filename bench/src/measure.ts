/** The median of a list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds taken by one call of `fn`. */
export function timeOnce(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Milliseconds taken by one call of an async `fn`. */
export async function timeOnceAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Median milliseconds over `runs` calls, each preceded by `setup` (not timed). */
export function medianOf(runs: number, fn: (run: number) => void, setup?: (run: number) => void): number {
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    setup?.(run);
    times.push(timeOnce(() => fn(run)));
  }
  return median(times);
}
