import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readPidFile } from '@cairn/daemon';
import { openProject, projectLayout } from '@cairn/orchestrator';
import { commitAll, generateTree, git } from './fixtures.js';
import { median, timeSideBySide } from './measure.js';
import type { BenchRow } from './storage-bench.js';

/** The `cairn` binary as a user runs it. */
const CAIRN = fileURLToPath(new URL('../../apps/cli/bin/cairn.mjs', import.meta.url));

/** How long one command may take before the bench gives up on it, saying which. */
const COMMAND_TIMEOUT_MS = 10 * 60_000;

/** Sizes of the CLI bench: tree sizes in files, and how many paired runs each figure is the median of. */
export interface CliBenchSize {
  trees: readonly number[];
  rounds: number;
}

/**
 * What a user types, timed as whole processes beside what they would otherwise run, on generated trees of
 * each size: start-up (`--version`, `--help`) against `node -e 0`; `cairn ls` against `git status`, without and
 * with the daemon; `cairn spawn --wait` of a trivial program against `git worktree add`; the first command's
 * import against `cp -r`; `cairn status` and `cairn diff` through the daemon against `node -e 0`; `cairn up --detach` against a stat walk of the tree (`du -s`) and the daemon's resident memory.
 */
export async function benchCli(work: string, size: CliBenchSize): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const bareNode = () => timeOne(() => run(process.execPath, ['-e', '0'], work));
  // a start-up is a tenth of a second: three times the rounds cost little, and steady a median that one busy
  // moment of the machine would move by tens of milliseconds
  const startRounds = size.rounds * 3;
  const [version, versionNode] = await timeSideBySide(startRounds, () => timeOne(() => cairn(['--version'], work)), bareNode);
  const [help, helpNode] = await timeSideBySide(startRounds, () => timeOne(() => cairn(['--help'], work)), bareNode);
  rows.push(row('cli', 'cairn --version', median(version), { 'node -e 0': median(versionNode) }, '<= node -e 0 + 40 ms'));
  rows.push(row('cli', 'cairn --help', median(help), { 'node -e 0': median(helpNode) }, '<= node -e 0 + 40 ms'));
  for (const files of size.trees) rows.push(...(await benchTree(work, files, size.rounds)));
  return rows;
}

async function benchTree(work: string, files: number, rounds: number): Promise<BenchRow[]> {
  const tree = `${files} files`;
  const root = join(work, `tree-${files}`);
  const home = join(work, `home-${files}`);
  generateTree(root, files);
  const pristine = join(work, `pristine-${files}`);
  cpSync(root, pristine, { recursive: true });
  commitAll(root);
  const trivial = join(work, 'trivial.js');
  writeFileSync(
    trivial,
    `await write_file('cairn-bench.txt', 'hello\\n');\nawait submit_result('a trivial change', ['cairn-bench.txt']);\n`,
  );
  const env = { CAIRN_HOME: home };
  const rows: BenchRow[] = [];
  try {
    // each first spawn paired with a copy, each started on a disk that has written back what came before (else the
    // one that follows pays for it). A round's project (databases, inbox, home) is moved aside for the next, and
    // nothing is deleted while the bench runs: this disk discards freed blocks, which slows the writes after it
    const imports: number[] = [];
    const copies: number[] = [];
    for (let i = 0; i < rounds; i++) {
      if (i > 0)
        for (const [made, name] of [
          [join(root, '.agentfs'), 'agentfs'],
          [join(root, '.cairn'), 'cairn'],
          [home, 'home'],
        ] as const)
          if (existsSync(made)) renameSync(made, join(work, `${name}-${files}-${i}`));
      settleDisk(work);
      imports.push(timeOne(() => cairn(['spawn', '--wait', '--code', trivial, 'trivial'], root, env)));
      settleDisk(work);
      copies.push(timeOne(() => run('cp', ['-r', pristine, join(work, `copy-${files}-${i}`)], work)));
    }
    rows.push(
      row(tree, 'first cairn spawn (imports the tree)', median(imports), { 'cp -r': median(copies) }, 'within 1.5x of cp -r at 50k files'),
    );

    settleDisk(work);
    const gitStatus = () => timeOne(() => run('git', ['status', '--porcelain'], root));
    const bareNode = () => timeOne(() => run(process.execPath, ['-e', '0'], work));
    const ls = () => timeOne(() => cairn(['ls'], root, env));
    const [lsNoDaemon, lsStatus, lsNode] = await timeSideBySide(rounds, ls, gitStatus, bareNode);
    rows.push(
      row(
        tree,
        'cairn ls, no daemon',
        median(lsNoDaemon),
        { 'git status': median(lsStatus), 'node -e 0': median(lsNode) },
        '<= git status',
      ),
    );
    const [synced, syncStatus] = await timeSideBySide(rounds, () => timeSync(root, home), gitStatus);
    rows.push(
      row(
        tree,
        'sync of the unchanged tree, no daemon (in process)',
        median(synced),
        { 'git status': median(syncStatus) },
        '<= git status',
      ),
    );

    const spawnNoDaemon = timeRuns(rounds, () => cairn(['spawn', '--wait', '--code', trivial, 'trivial'], root, env));
    const worktree = timeRuns(rounds, (i) => git(root, 'worktree', 'add', '-q', '--detach', join(work, `wt-${files}-${i}`)));
    rows.push(
      row(
        tree,
        'cairn spawn --wait, no daemon',
        median(spawnNoDaemon),
        { 'git worktree add': median(worktree) },
        '>= 3x faster than git worktree add at 50k files',
      ),
    );

    // each start paired with a stat walk (what any tool that looks at every file pays: du reads no file, only the
    // folders and their stats), and stopped again but for the last: the disk is still writing back the worktrees
    // made above, so a single start would say more of that than of Cairn
    settleDisk(work);
    const ups: number[] = [];
    const statWalks: number[] = [];
    for (let i = 0; i < rounds; i++) {
      if (i > 0) cairn(['down'], root, env);
      statWalks.push(timeOne(() => run('du', ['-s', root], work)));
      ups.push(timeOne(() => cairn(['up', '--detach'], root, env)));
    }
    rows.push(
      row(tree, 'cairn up --detach', median(ups), { 'stat walk (du -s)': median(statWalks) }, '<= 3x a stat walk of the tree at 50k files'),
    );
    const rss = daemonRss(root, home);
    if (rss !== undefined)
      rows.push({ tree, measure: 'daemon resident memory', unit: 'MB', cairn: rss, others: {}, goal: '<= 150 MB at 50k files' });
    // the agent whose proposal `cairn diff` shows: one the spawns above left reviewing
    const shown = reviewingAgent(root, env);
    const status = () => timeOne(() => cairn(['status'], root, env));
    const diff = () => timeOne(() => cairn(['diff', shown], root, env));
    const [lsDaemon, statusDaemon, diffDaemon, daemonNode] = await timeSideBySide(rounds, ls, status, diff, bareNode);
    for (const [command, times] of [
      ['cairn ls', lsDaemon],
      ['cairn status', statusDaemon],
      ['cairn diff ID', diffDaemon],
    ] as const)
      rows.push(
        row(tree, `${command}, daemon up`, median(times), { 'node -e 0': median(daemonNode) }, '<= 2x node -e 0, flat in tree size'),
      );
    const spawnDaemon = timeRuns(rounds, () => cairn(['spawn', '--wait', '--code', trivial, 'trivial'], root, env));
    const clis = 8;
    const each = Math.max(1, Math.round(rounds));
    const concurrent = await timeAsync(() =>
      Promise.all(Array.from({ length: clis }, () => cairnInTurn(each, ['spawn', '--wait', '--code', trivial, 'trivial'], root, env))),
    );
    // the same number of processes doing nothing: what starting Node alone allows on this machine
    const bare = await timeAsync(() => Promise.all(Array.from({ length: clis }, () => inTurn(each, ['-e', '0'], root, {}))));
    rows.push({
      tree,
      measure: `${clis * each} agents from ${clis} CLIs at once, daemon up`,
      unit: 'agents/s',
      cairn: (clis * each) / (concurrent / 1000),
      others: { [`${clis * each} node -e 0 from ${clis} shells at once`]: (clis * each) / (bare / 1000) },
      goal: '>= 15 agents/s',
    });
    rows.push(
      row(
        tree,
        'cairn spawn --wait, daemon up',
        median(spawnDaemon),
        { 'git worktree add': median(worktree) },
        '>= 20x faster than git worktree add at 50k files',
      ),
    );
  } finally {
    spawnSync(process.execPath, [CAIRN, 'down'], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: 'ignore',
      timeout: COMMAND_TIMEOUT_MS,
    });
  }
  return rows;
}

/** The daemon's resident memory (MB), from its pid file and /proc; undefined where /proc is not there. */
function daemonRss(root: string, home: string): number | undefined {
  const pid = readPidFile(projectLayout(root, home).pidPath)?.pid;
  if (pid === undefined) return undefined;
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

function row(tree: string, measure: string, cairnMs: number, others: Record<string, number>, goal: string): BenchRow {
  return { tree, measure, unit: 'ms', cairn: cairnMs, others, goal };
}

/** Milliseconds of `rounds` runs of `fn`, each a whole process. */
function timeRuns(rounds: number, fn: (round: number) => void): number[] {
  return Array.from({ length: rounds }, (_, round) => timeOne(() => fn(round)));
}

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `cairn …` `times` times, one after another, in a child process each: one user at a terminal. */
function cairnInTurn(times: number, args: readonly string[], cwd: string, env: Record<string, string>): Promise<void> {
  return inTurn(times, [CAIRN, ...args], cwd, env);
}

/**
 * Milliseconds of one sync of the tree into stable.db by a project opened in this process (what a command without a
 * daemon pays before its work), on a freshly opened project.
 */
async function timeSync(root: string, home: string): Promise<number> {
  const project = openProject(root, { cairnHome: home, queue: 'none' });
  try {
    return await timeAsync(() => project.sync());
  } finally {
    await project.close();
  }
}

/** Runs `node …args` `times` times, one after another, in a child process each. */
async function inTurn(times: number, args: readonly string[], cwd: string, env: Record<string, string>): Promise<void> {
  for (let i = 0; i < times; i++) {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
      child.on('error', reject);
      child.on('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`node ${args.join(' ')} exited ${code}`));
      });
    });
  }
}

/** Waits until the disk has written back what the commands before wrote (`sync`), so the next timing is not theirs. */
function settleDisk(work: string): void {
  run('sync', [], work);
}

function timeOne(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The id of a reviewing agent of the project, from `cairn ls --json`. */
function reviewingAgent(root: string, env: Record<string, string>): string {
  const done = spawnSync(process.execPath, [CAIRN, 'ls', '--json', '--state', 'reviewing'], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: COMMAND_TIMEOUT_MS,
  });
  const result = JSON.parse(done.stdout.trim().split('\n').pop() ?? '{}') as { agents?: { id: string }[] };
  const id = result.agents?.[0]?.id;
  if (id === undefined) throw new Error(`cairn ls --json found no reviewing agent in ${root}: ${done.stderr.trim()}`);
  return id;
}

function cairn(args: readonly string[], cwd: string, env: Record<string, string> = {}): void {
  run(process.execPath, [CAIRN, ...args], cwd, { NO_COLOR: '1', ...env });
}

/** Runs a command to its end; a failure or a command that outlasts the bound stops the bench, naming it. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): void {
  const done = spawnSync(command, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: COMMAND_TIMEOUT_MS,
  });
  const shown = [command === process.execPath ? 'node' : command, ...args].join(' ');
  if (done.error !== undefined) throw new Error(`${shown} did not finish: ${done.error.message}`);
  if (done.status !== 0) throw new Error(`${shown} exited ${done.status}: ${String(done.stderr).trim().split('\n').slice(-3).join(' ')}`);
}
