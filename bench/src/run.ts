import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchChecks } from './checks-bench.js';
import { benchCli } from './cli-bench.js';
import { benchDiff } from './diff-bench.js';
import { benchExec } from './exec-bench.js';
import { generateTree } from './fixtures.js';
import { benchKernel } from './kernel-bench.js';
import { benchMcp } from './mcp-bench.js';
import { report, SMOKE } from './measure.js';
import { benchNvim } from './nvim-bench.js';
import { benchOrchestrator } from './orchestrator-bench.js';
import { benchPrompt } from './prompt-bench.js';
import { benchSandbox } from './sandbox-bench.js';
import { benchScenario } from './scenario-bench.js';
import { benchSeed } from './seed-bench.js';
import { type BenchRow, benchStorage } from './storage-bench.js';
import { benchWorkers } from './workers-bench.js';

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

/** `--only kernel,cli`: run just the parts whose names contain one of the words (the results go to partial.json). */
const ONLY = (parseArgs({ options: { only: { type: 'string' } } }).values.only ?? '')
  .split(',')
  .map((word) => word.trim().toLowerCase())
  .filter((word) => word !== '');

/** One part of the bench: it gets a fresh temporary folder of its own and returns its rows. */
interface BenchPart {
  name: string;
  run(work: string): Promise<BenchRow[]> | BenchRow[];
}

/** A part that did not finish, and why. */
interface FailedPart {
  part: string;
  error: string;
}

function format(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3);
}

function printRows(rows: readonly BenchRow[]): void {
  for (const row of rows) {
    const others = Object.entries(row.others)
      .map(([name, value]) => `${name} ${format(value)} (${format(value / row.cairn)}x Cairn)`)
      .join(' | ');
    report(
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

/** A private copy of a pristine source tree, so no part sees what another part did to its tree. */
function copyOf(source: string, work: string): string {
  const tree = join(work, 'tree');
  cpSync(source, tree, { recursive: true, dereference: true });
  return tree;
}

async function main(): Promise<number> {
  const sources = mkdtempSync(join(tmpdir(), 'cairn-bench-sources-'));
  const all: BenchRow[] = [];
  const failed: FailedPart[] = [];
  try {
    const generated = join(sources, 'generated');
    const generatedFiles = SMOKE ? 300 : 10_000;
    const generatedName = SMOKE ? 'generated 300' : 'generated 10k';
    generateTree(generated, generatedFiles);
    const real = join(sources, 'drizzle-orm');
    cpSync(realTree(), real, { recursive: true, dereference: true });
    const parts: BenchPart[] = [
      { name: 'kernel', run: () => benchKernel() },
      { name: 'sandbox', run: () => benchSandbox() },
      { name: `storage, ${generatedName}`, run: (work) => benchStorage(generatedName, copyOf(generated, work), join(work, 'scratch')) },
      { name: 'storage, drizzle-orm', run: (work) => benchStorage('drizzle-orm package', copyOf(real, work), join(work, 'scratch')) },
      { name: 'diff and merge of large files', run: (work) => benchDiff(work) },
      { name: 'orchestrator', run: (work) => benchOrchestrator('drizzle-orm package', real, work) },
      { name: 'seed 001', run: (work) => benchSeed('drizzle-orm package', real, work) },
      { name: 'model prompt', run: (work) => benchPrompt(work) },
      { name: 'neovim', run: (work) => benchNvim(work) },
      { name: 'workers', run: (work) => benchWorkers(work) },
      { name: 'checks', run: (work) => benchChecks(work) },
      { name: 'scenario: checks, workers, agents from several CLIs', run: (work) => benchScenario(work) },
      {
        name: 'cli: cairn from the command line',
        run: (work) => benchCli(work, SMOKE ? { trees: [200], rounds: 1 } : { trees: [1_000, 10_000, 50_000], rounds: 5 }),
      },
      {
        name: 'exec: agent CLIs in sealed views',
        run: (work) =>
          benchExec(
            work,
            SMOKE
              ? { trees: [200], rounds: 1, crowdTree: 200, crowd: 3, crowdRounds: 1 }
              : { trees: [1_000, 10_000, 50_000], rounds: 5, crowdTree: 10_000, crowd: 10, crowdRounds: 3 },
          ),
      },
      {
        name: 'mcp: environments over stdio',
        run: (work) =>
          benchMcp(
            work,
            SMOKE
              ? { trees: [200], rounds: 1, writesTree: 200, writes: 50, writeRounds: 1 }
              : { trees: [1_000, 10_000, 50_000], rounds: 5, writesTree: 1_000, writes: 50, writeRounds: 5 },
          ),
      },
    ];
    const chosen = ONLY.length === 0 ? parts : parts.filter((part) => ONLY.some((word) => part.name.toLowerCase().includes(word)));
    if (chosen.length === 0)
      throw new UsageError(`--only ${ONLY.join(',')} names no part; the parts: ${parts.map((p) => p.name).join('; ')}`);
    for (const part of chosen) {
      const work = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
      try {
        const rows = await part.run(work);
        printRows(rows);
        all.push(...rows);
      } catch (error) {
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        report(`[${part.name}] failed, skipped: ${message}`, 'err');
        failed.push({ part: part.name, error: error instanceof Error ? error.message : String(error) });
      } finally {
        rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
      }
    }
  } finally {
    rmSync(sources, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, SMOKE ? 'smoke.json' : ONLY.length > 0 ? 'partial.json' : 'latest.json');
  writeFileSync(file, JSON.stringify({ node: process.version, at: new Date().toISOString(), smoke: SMOKE, rows: all, failed }, null, 2));
  if (failed.length > 0) report(`bench: ${failed.length} part(s) failed: ${failed.map((f) => f.part).join(', ')}`, 'err');
  report(`bench: ${all.length} rows written to ${file}`);
  return failed.length === 0 ? 0 : 1;
}

/** Bad flags: said in one line, no stack. */
class UsageError extends Error {}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  report(`bench: ${error.message}`, 'err');
  process.exitCode = 2;
}
