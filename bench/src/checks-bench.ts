import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ProposedFile, runSealed } from '@cairn/checks';
import { openProject } from '@cairn/orchestrator';
import { median, report, scaled, timeOnceAsync, within } from './measure.js';
import type { BenchRow } from './storage-bench.js';

const TREE = 'package with node_modules';
/**
 * Dependencies the local pnpm store holds (from Cairn's own lock file). The first install resolves them (from the
 * store's metadata, or the registry when a frozen install left none); the timed ones are `--offline`.
 */
const DEPENDENCIES = { ms: '2.1.3', picomatch: '4.0.7', nanoid: '3.3.20', postcss: '8.5.33', openai: '6.49.0' };
const SOURCE = 'export function add(a, b) {\n  return a + b;\n}\n';
const PROPOSED = 'export function add(a, b) {\n  return b + a;\n}\n\nexport const twice = (a) => add(a, a);\n';

/**
 * Checks against what users do today: a small package with its dependencies installed (from the local pnpm
 * store) and a node:test suite, and an agent's proposal to it. Cairn: the sealed view over the working tree (time until the
 * command could start, time until the tests finished); today: `git worktree add` + `pnpm install --offline`
 * + the same command. Disk: what each leaves on disk for the check (Cairn's agent database against the
 * worktree with its dependencies). Then 8 checks of 8 agents at once.
 */
export async function benchChecks(work: string): Promise<BenchRow[]> {
  const root = join(work, 'project');
  makePackage(root);
  installDependencies(root);
  git(root, 'init', '-q');
  git(root, 'add', '.');
  git(root, '-c', 'user.email=bench@cairn', '-c', 'user.name=bench', 'commit', '-qm', 'package');
  const changes: ProposedFile[] = [{ path: 'src/math.js', content: Buffer.from(PROPOSED) }];
  const command = ['pnpm', 'test'];
  const rounds = scaled(5);

  const project = openProject(root, { cairnHome: join(work, 'home') });
  let agentDb = 0;
  try {
    await project.sync();
    const agent = await project.spawn('swap the operands', {
      code: `await write_file('src/math.js', ${JSON.stringify(PROPOSED)});\nawait submit_result('swap', ['src/math.js']);\n`,
    });
    await within('the agent to propose', project.wait(agent.id));
    agentDb = statSync(project.layout.overlayPath(agent.id)).size;
  } finally {
    await project.close();
  }

  const ready: number[] = [];
  const finished: number[] = [];
  let view = '';
  for (let round = 0; round < rounds; round++) {
    const run = await within('a sealed check', runSealed({ root, changes, command, timeoutMs: 300_000, outputCapBytes: 1024 * 1024 }));
    if (run.status !== 'passed') throw new Error(`the check did not pass (${run.status}): ${run.output.toString().slice(-2000)}`);
    ready.push(run.readyMs ?? Number.NaN);
    finished.push(run.durationMs);
    view = `${run.view}${run.sealed ? ', sealed' : ''}`;
  }

  const treeReady: number[] = [];
  const treeFinished: number[] = [];
  let treeDisk = 0;
  for (let round = 0; round < rounds; round++) {
    const tree = join(work, `worktree-${round}`);
    const start = process.hrtime.bigint();
    git(root, 'worktree', 'add', '-q', '--detach', tree);
    writeFileSync(join(tree, 'src', 'math.js'), PROPOSED);
    execFileSync('pnpm', ['install', '--offline', '--silent', '--frozen-lockfile'], { cwd: tree, stdio: 'ignore' });
    treeReady.push(Number(process.hrtime.bigint() - start) / 1e6);
    execFileSync(command[0]!, command.slice(1), { cwd: tree, stdio: 'ignore' });
    treeFinished.push(Number(process.hrtime.bigint() - start) / 1e6);
    treeDisk = diskBytes(tree);
    git(root, 'worktree', 'remove', '--force', tree);
  }

  const parallel = await timeOnceAsync(async () => {
    const runs = await within(
      '8 checks at once',
      Promise.all(Array.from({ length: 8 }, () => runSealed({ root, changes, command, timeoutMs: 600_000, outputCapBytes: 1024 * 1024 }))),
    );
    const failed = runs.filter((run) => run.status !== 'passed');
    if (failed.length > 0) throw new Error(`${failed.length} of 8 parallel checks did not pass`);
  });
  report(`[${TREE}] checks ran in the ${view} view`);
  return [
    row(
      'proposal → check environment ready',
      'ms',
      median(ready),
      { 'git worktree + pnpm install --offline': median(treeReady) },
      '≤ 50 ms, ≥ 100x faster',
    ),
    row(
      'proposal → tests finished (pnpm test)',
      'ms',
      median(finished),
      { 'git worktree + install + pnpm test': median(treeFinished) },
      '',
    ),
    row('disk for one check', 'KiB', agentDb / 1024, { 'git worktree + node_modules': treeDisk / 1024 }, '≥ 100x smaller'),
    row('8 checks of 8 agents at once (wall time)', 'ms', parallel, {}, '2 cores'),
  ];
}

function row(measure: string, unit: string, cairn: number, others: Record<string, number>, goal: string): BenchRow {
  return { tree: TREE, measure, unit, cairn, others, goal };
}

function makePackage(root: string): void {
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(join(root, 'test'), { recursive: true });
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'bench-package',
      private: true,
      type: 'module',
      scripts: { test: 'node --test test/' },
      dependencies: DEPENDENCIES,
    }),
  );
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n.agentfs/\n');
  writeFileSync(join(root, 'src', 'math.js'), SOURCE);
  for (let i = 0; i < 8; i++)
    writeFileSync(
      join(root, 'test', `math-${i}.test.mjs`),
      [
        "import { test } from 'node:test';",
        "import assert from 'node:assert/strict';",
        "import ms from 'ms';",
        "import picomatch from 'picomatch';",
        "import { add } from '../src/math.js';",
        `test('adds ${i}', () => assert.equal(add(${i}, 2), ${i + 2}));`,
        `test('uses its dependencies', () => { assert.equal(ms('2s'), 2000); assert.ok(picomatch('*.js')('a.js')); });`,
        '',
      ].join('\n'),
    );
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

/** Bytes a folder takes on disk (`du`), links into a shared store counted once, as the file system does. */
function diskBytes(dir: string): number {
  return Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) * 1024;
}

/** The package's first install: offline when the store's metadata allows, else from the registry (tarballs from the store). */
function installDependencies(root: string): void {
  try {
    execFileSync('pnpm', ['install', '--offline', '--silent'], { cwd: root, stdio: 'ignore' });
  } catch {
    execFileSync('pnpm', ['install', '--prefer-offline', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  }
}
