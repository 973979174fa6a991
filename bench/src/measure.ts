import { execFileSync } from 'node:child_process';

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

/** A smoke pass (`pnpm bench --smoke`, as CI runs it): tiny sizes and few rounds, so the bench cannot break unnoticed. */
export const SMOKE = process.argv.includes('--smoke') || process.env.CAIRN_BENCH_SMOKE === '1';

/** A count of runs or items: as given for the full bench, a tenth of it (at least one) in a smoke pass. */
export function scaled(count: number): number {
  return SMOKE ? Math.max(1, Math.ceil(count / 10)) : count;
}

/** How long the bench waits for any one thing before it gives up on the part, naming what it waited for. */
export const WAIT_LIMIT_MS = 5 * 60_000;

/** `promise`, or a rejection naming `what` once `ms` have passed without it. */
export function within<T>(what: string, promise: Promise<T>, ms = WAIT_LIMIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${Math.round(ms / 1000)} s for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Writes a line of the bench's report. Straight to the process's streams: the `neovim` client the Neovim part
 * loads takes `console` over (so nothing reaches its RPC channel), which would swallow everything after it.
 */
export function report(line: string, stream: 'out' | 'err' = 'out'): void {
  (stream === 'out' ? process.stdout : process.stderr).write(line + '\n');
}

/**
 * `rounds` figures of each measure, taken side by side: one of each per round, in an order that turns round by
 * round, so a machine that gets busier or quieter weighs on each alike. The disk writes back what came before each.
 */
export async function timeSideBySide<Measures extends (() => number | Promise<number>)[]>(
  rounds: number,
  ...measures: Measures
): Promise<{ [K in keyof Measures]: number[] }> {
  const times = measures.map((): number[] => []);
  for (let round = 0; round < rounds; round++)
    for (let step = 0; step < measures.length; step++) {
      const which = (round + step) % measures.length;
      settleDisk();
      times[which]!.push(await measures[which]!());
    }
  return times as { [K in keyof Measures]: number[] };
}

/** Waits until the disk has written back what came before (a removed worktree), so the next timing is not its. */
export function settleDisk(): void {
  execFileSync('sync');
}
