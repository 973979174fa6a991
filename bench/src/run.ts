import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTree } from './fixtures.js';
import { benchKernel } from './kernel-bench.js';
import { benchNvim } from './nvim-bench.js';
import { benchOrchestrator } from './orchestrator-bench.js';
import { benchSandbox } from './sandbox-bench.js';
import { benchSeed } from './seed-bench.js';
import { benchStorage, type BenchRow } from './storage-bench.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

function format(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3);
}

function printRows(rows: readonly BenchRow[]): void {
  for (const row of rows) {
    const others = Object.entries(row.others)
      .map(([name, value]) => `${name} ${format(value)} (${format(value / row.cairn)}x Cairn)`)
      .join(' | ');
    console.log(
      `[${row.tree}] ${row.measure}: Cairn ${format(row.cairn)} ${row.unit}${others ? ' | ' + others : ''}${row.goal ? `  [goal: ${row.goal}]` : ''}`,
    );
  }
}

/** A real public source tree that is at hand without network: the published drizzle-orm package. */
function realTree(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve('drizzle-orm'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
  const all: BenchRow[] = [];
  try {
    const kernelRows = benchKernel();
    printRows(kernelRows);
    all.push(...kernelRows);
    const sandboxRows = await benchSandbox();
    printRows(sandboxRows);
    all.push(...sandboxRows);
    const generated = join(work, 'generated');
    generateTree(generated, 10_000);
    const generatedRows = await benchStorage('generated 10k', generated, join(work, 'g'));
    printRows(generatedRows);
    all.push(...generatedRows);
    const real = join(work, 'drizzle-orm');
    cpSync(realTree(), real, { recursive: true, dereference: true });
    const realRows = await benchStorage('drizzle-orm package', real, join(work, 'r'));
    printRows(realRows);
    all.push(...realRows);
    const agentRows = await benchOrchestrator('drizzle-orm package', real, join(work, 'o'));
    printRows(agentRows);
    all.push(...agentRows);
    const seedRows = await benchSeed('drizzle-orm package', real, join(work, 's'));
    printRows(seedRows);
    all.push(...seedRows);
    const nvimRows = await benchNvim(join(work, 'n'));
    printRows(nvimRows);
    all.push(...nvimRows);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(
      join(RESULTS, 'latest.json'),
      JSON.stringify({ node: process.version, at: new Date().toISOString(), rows: all }, null, 2),
    );
  } finally {
    rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

await main();
