import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentFS, importTree, Overlay } from '@cairn/agentfs';
import { openProject, type Project } from '@cairn/orchestrator';
import { createSandbox } from '@cairn/sandbox';
import { commitAll, git, listFiles } from './fixtures.js';
import { median, scaled, timeOnceAsync, within } from './measure.js';

/** Reviewing agents held in one process for the memory figure. */
const HELD = scaled(50);

import type { BenchRow } from './storage-bench.js';

/** A trivial agent: reads three files and writes one. */
function trivialProgram(files: readonly string[], out: string): string {
  const reads = files
    .slice(0, 3)
    .map((f) => `await read_file(${JSON.stringify(f)});`)
    .join(' ');
  return `${reads} await write_file(${JSON.stringify(out)}, 'changed by an agent\\n' + Math.random());`;
}

async function spawnAndWait(project: Project, task: string, code: string): Promise<void> {
  const agent = await project.spawn(task, { code });
  const done = await within(`agent ${agent.id} to settle`, project.wait(agent.id));
  if (done.state !== 'reviewing') throw new Error(`bench agent ${agent.id} ended ${done.state}: ${done.reason ?? ''}`);
}

/**
 * The orchestrator against what users would otherwise do: spawn → reviewing for a trivial program vs
 * `git worktree add` + the same edit + `git diff`; 100 agents through a pool of 8; a governed read_file vs
 * the bare sandbox round trip; accept of 100 files (working tree included) vs agentfs's accept alone;
 * the resident memory of a process holding 50 reviewing agents.
 */
export async function benchOrchestrator(treeName: string, source: string, work: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const root = join(work, 'project');
  mkdirSync(work, { recursive: true });
  cpSync(source, root, { recursive: true });
  const files = listFiles(root).filter((f) => !f.startsWith('.git/'));
  const home = join(work, 'home');
  let project = openProject(root, { cairnHome: home, poolSize: 8 });
  try {
    await project.sync();
    const program = trivialProgram(files, 'bench-out.txt');
    for (let i = 0; i < scaled(5); i++) await spawnAndWait(project, 'warm-up', program);

    const spawnTimes: number[] = [];
    for (let i = 0; i < scaled(30); i++) spawnTimes.push(await timeOnceAsync(() => spawnAndWait(project, `trivial ${i}`, program)));

    const gitRoot = join(work, 'git');
    cpSync(source, gitRoot, { recursive: true });
    commitAll(gitRoot);
    const worktreeTimes: number[] = [];
    for (let i = 0; i < scaled(8); i++) {
      const dir = join(work, `wt-${i}`);
      worktreeTimes.push(
        await timeOnceAsync(async () => {
          git(gitRoot, 'worktree', 'add', '-q', dir, 'HEAD');
          for (const f of files.slice(0, 3)) readFileSync(join(dir, f));
          writeFileSync(join(dir, files[0]!), 'changed by an agent\n');
          execFileSync('git', ['-C', dir, 'diff'], { stdio: 'ignore' });
        }),
      );
      git(gitRoot, 'worktree', 'remove', '--force', dir);
    }
    rows.push({
      tree: treeName,
      measure: 'spawn -> reviewing, trivial program (read 3, write 1)',
      unit: 'ms',
      cairn: median(spawnTimes),
      others: { 'git worktree add + edit + git diff': median(worktreeTimes) },
      goal: '<= 15 ms, flat in repo size',
    });

    await project.close();
    project = openProject(root, { cairnHome: home, poolSize: 8 });
    const started = performance.now();
    const pooled = scaled(100);
    const ids = await Promise.all(
      Array.from({ length: pooled }, (_, i) =>
        project.queue(`pool ${i}`, { code: trivialProgram(files, `pool/${i}.txt`) }).then((a) => a.id),
      ),
    );
    const finals = await Promise.all(ids.map((id) => within(`agent ${id} to settle`, project.wait(id))));
    const poolMs = performance.now() - started;
    if (finals.some((a) => a.state !== 'reviewing')) throw new Error('a pooled agent did not reach reviewing');
    rows.push({
      tree: treeName,
      measure: `${pooled} agents through a pool of 8`,
      unit: 'ms',
      cairn: poolMs,
      others: { 'agents/s': pooled / (poolMs / 1000) },
      goal: '>= 20 agents/s on 2 cores',
    });

    const READS = 500;
    const small = files.find((f) => readFileSync(join(root, f)).length < 2048) ?? files[0]!;
    const governed: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < scaled(7); i++) {
      governed.push(
        await timeOnceAsync(() =>
          spawnAndWait(
            project,
            'reads',
            `for (let i = 0; i < ${READS}; i++) await read_file(${JSON.stringify(small)}); await write_file('reads.txt', 'x' + Math.random());`,
          ),
        ),
      );
      baseline.push(
        await timeOnceAsync(() =>
          spawnAndWait(
            project,
            'no reads',
            `for (let i = 0; i < ${READS}; i++) await Promise.resolve(i); await write_file('reads.txt', 'x' + Math.random());`,
          ),
        ),
      );
    }
    const governedUs = ((median(governed) - median(baseline)) / READS) * 1000;
    const bareUs = await bareRoundTrip(readFileSync(join(root, small), 'utf8'), READS);
    rows.push({
      tree: treeName,
      measure: 'governed read_file round trip (gate, receipt, journal)',
      unit: 'µs',
      cairn: governedUs,
      others: { 'bare sandbox tool call': bareUs },
      goal: '<= 2x the bare round trip',
    });

    const hundred = files.slice(0, 100);
    const editAll = `for (const f of ${JSON.stringify(hundred)}) await write_file(f, (await read_file(f)) + '// agent ' + Math.random() + '\\n');`;
    const acceptTimes: number[] = [];
    for (let i = 0; i < scaled(5); i++) {
      const agent = await project.spawn('edit 100', { code: editAll });
      await within(`agent ${agent.id} to settle`, project.wait(agent.id));
      acceptTimes.push(await timeOnceAsync(() => project.accept(agent.id)));
    }
    rows.push({
      tree: treeName,
      measure: 'accept 100 files (stable.db and working tree)',
      unit: 'ms',
      cairn: median(acceptTimes),
      others: { 'agentfs accept alone': agentfsAccept(root, hundred, work) },
      goal: '<= 3x agentfs accept alone',
    });

    // a long run and its replay: the replay answers every call from the journal, so it should cost about the run
    const calls = scaled(20_000);
    const longRun = `for (let i = 0; i < ${calls}; i++) await file_exists(${JSON.stringify(small)}); await write_file('long.txt', 'x');`;
    let longId = '';
    const runMs = await timeOnceAsync(async () => {
      const agent = await project.spawn('long run', { code: longRun, budgets: { calls: calls + 100 } });
      longId = agent.id;
      const done = await within(`agent ${agent.id} to settle`, project.wait(agent.id));
      if (done.state !== 'reviewing') throw new Error(`bench agent ${agent.id} ended ${done.state}: ${done.reason ?? ''}`);
    });
    const replayMs = await timeOnceAsync(async () => {
      const outcome = await within(`the replay of ${longId}`, project.replay(longId));
      if (!outcome.ok) throw new Error(`bench replay of ${longId} diverged`);
    });
    rows.push({
      tree: treeName,
      measure: `replay of an agent of ${calls} calls`,
      unit: 'ms',
      cairn: replayMs,
      others: { 'the run it replays (spawn -> reviewing)': runMs },
      goal: 'about the run',
    });

    for (let i = 0; i < HELD; i++) await project.queue(`hold ${i}`, { code: trivialProgram(files, `hold/${i}.txt`) });
    await Promise.all((await project.agents({ state: 'queued' })).map((a) => within(`agent ${a.id} to settle`, project.wait(a.id))));
    rows.push({
      tree: treeName,
      measure: `resident memory of a process holding ${HELD} reviewing agents`,
      unit: 'MB',
      cairn: holdingRss(root, home),
      others: { 'bare node process': bareRss() },
      goal: '',
    });
  } finally {
    await project.close();
    rmSync(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
  return rows;
}

/** The bare sandbox round trip: a host function returning the same text, no gate. */
async function bareRoundTrip(text: string, calls: number): Promise<number> {
  const sandbox = createSandbox({ poolSize: 1 });
  try {
    const withCalls: number[] = [];
    const empty: number[] = [];
    for (let i = 0; i < scaled(7); i++) {
      withCalls.push(
        await timeOnceAsync(() =>
          sandbox.run({
            code: `for (let i = 0; i < ${calls}; i++) await read_file('x'); return 1`,
            functions: { read_file: () => text },
            limits: { calls },
          }),
        ),
      );
      empty.push(await timeOnceAsync(() => sandbox.run({ code: `for (let i = 0; i < ${calls}; i++) await Promise.resolve(i); return 1` })));
    }
    return ((median(withCalls) - median(empty)) / calls) * 1000;
  } finally {
    await sandbox.close();
  }
}

/** agentfs's accept of 100 changed files into a store, no working tree. */
function agentfsAccept(root: string, hundred: readonly string[], work: string): number {
  const times: number[] = [];
  for (let i = 0; i < scaled(5); i++) {
    const stable = AgentFS.open(join(work, `accept-stable-${i}.db`));
    importTree(stable, root);
    const overlay = Overlay.open(join(work, `accept-agent-${i}.db`), stable);
    for (const f of hundred) overlay.fs.writeFile('/' + f, overlay.fs.readFile('/' + f, 'utf8') + `// ${i}\n`);
    const start = performance.now();
    overlay.accept();
    times.push(performance.now() - start);
    overlay.close();
    stable.close();
  }
  return median(times);
}

/** RSS of a fresh process that opens the project and lists its agents (50 of them reviewing). */
function holdingRss(root: string, home: string): number {
  const script = `import { openProject } from '@cairn/orchestrator'; const p = openProject(${JSON.stringify(root)}, { cairnHome: ${JSON.stringify(home)} }); const n = (await p.agents({ state: 'reviewing' })).length; if (n < ${HELD}) throw new Error('only ' + n); console.log(process.memoryUsage().rss); await p.close();`;
  return (
    Number(
      execFileSync(process.execPath, ['--no-node-snapshot', '--input-type=module', '-e', script], {
        cwd: new URL('..', import.meta.url).pathname,
        encoding: 'utf8',
      }).trim(),
    ) / 1e6
  );
}

function bareRss(): number {
  return Number(execFileSync(process.execPath, ['-e', 'console.log(process.memoryUsage().rss)'], { encoding: 'utf8' }).trim()) / 1e6;
}
