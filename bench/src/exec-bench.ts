import { join } from 'node:path';
import { type AgentInfo, type CairnEvent, openProject, type Project } from '@cairn/orchestrator';
import { committedTree, git } from './fixtures.js';
import { median, timeSideBySide, within } from './measure.js';
import type { BenchRow } from './storage-bench.js';

/** Sizes of the exec bench: tree sizes in files, paired rounds per figure, and the tree and number of agents run at once. */
export interface ExecBenchSize {
  trees: readonly number[];
  rounds: number;
  crowdTree: number;
  crowd: number;
  crowdRounds: number;
}

/** What each bench agent runs in its view: a shell that writes one file, so its proposal is not empty. */
const COMMAND = ['sh', '-c', 'echo hello > cairn-bench.txt'];

/**
 * Exec agents (an agent CLI in a writable sealed view) against `git worktree add` of the same tree, committed:
 * spawn → the command running, in a process that holds the project opened and synced (as a daemon does), at
 * each tree size; and ten agents spawned at once on one tree (until all run, until all are reviewing) against
 * ten worktrees added in turn (git cannot add them at once to one repository safely).
 */
export async function benchExec(work: string, size: ExecBenchSize): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const files of size.trees) rows.push(await benchSpawn(work, files, size.rounds));
  rows.push(...(await benchCrowd(work, size)));
  return rows;
}

async function benchSpawn(work: string, files: number, rounds: number): Promise<BenchRow> {
  const tree = `${files} files`;
  const root = committedTree(work, files);
  const project = openProject(root, { cairnHome: join(work, `home-${files}`), queue: 'own' });
  const watch = watchRunning(project);
  const spawned: string[] = [];
  try {
    await project.sync();
    // the first run starts the sandbox the capture runs in, and warms the caches a daemon would have warm
    await settleReviewing(project, await spawnExec(project, watch, spawned, 'warm-up'));
    let worktrees = 0;
    const cairn = async () => {
      const start = performance.now();
      const id = await spawnExec(project, watch, spawned, 'bench');
      const ms = (await watch.running(id, project)) - start;
      await settleReviewing(project, id);
      return ms;
    };
    const worktree = () => {
      const dir = join(work, `wt-${files}-${worktrees++}`);
      const ms = timeOne(() => git(root, 'worktree', 'add', '-q', '--detach', dir));
      git(root, 'worktree', 'remove', '--force', dir);
      return ms;
    };
    const [spawns, adds] = await timeSideBySide(rounds, cairn, worktree);
    return {
      tree,
      measure: 'spawn --exec -> agent process running (in process, project synced)',
      unit: 'ms',
      cairn: median(spawns),
      others: { 'git worktree add': median(adds) },
      goal: '<= 200 ms at 50k files, >= 20x faster than git worktree add',
    };
  } finally {
    await closeAll(project, watch, spawned);
  }
}

async function benchCrowd(work: string, size: ExecBenchSize): Promise<BenchRow[]> {
  const tree = `${size.crowdTree} files`;
  const root = committedTree(work, size.crowdTree, 'crowd');
  const project = openProject(root, { cairnHome: join(work, 'home-crowd'), queue: 'own', poolSize: size.crowd });
  const watch = watchRunning(project);
  const spawned: string[] = [];
  try {
    await project.sync();
    await settleReviewing(project, await spawnExec(project, watch, spawned, 'warm-up'));
    let worktrees = 0;
    const running: number[] = [];
    const cairn = async () => {
      const start = performance.now();
      const ids = await Promise.all(Array.from({ length: size.crowd }, (_, i) => spawnExec(project, watch, spawned, `crowd ${i}`)));
      const allRunning = Math.max(...(await Promise.all(ids.map((id) => watch.running(id, project)))));
      await Promise.all(ids.map((id) => settleReviewing(project, id)));
      running.push(allRunning - start);
      return performance.now() - start;
    };
    const worktree = () => {
      const dirs = Array.from({ length: size.crowd }, () => join(work, `wt-crowd-${worktrees++}`));
      const ms = timeOne(() => {
        for (const dir of dirs) git(root, 'worktree', 'add', '-q', '--detach', dir);
      });
      for (const dir of dirs) git(root, 'worktree', 'remove', '--force', dir);
      return ms;
    };
    const [settled, adds] = await timeSideBySide(size.crowdRounds, cairn, worktree);
    const others = { [`${size.crowd} git worktree add in turn`]: median(adds) };
    return [
      { tree, measure: `${size.crowd} exec agents at once: all running`, unit: 'ms', cairn: median(running), others, goal: '' },
      { tree, measure: `${size.crowd} exec agents at once: all reviewing`, unit: 'ms', cairn: median(settled), others, goal: '' },
    ];
  } finally {
    await closeAll(project, watch, spawned);
  }
}

async function spawnExec(project: Project, watch: RunningWatch, spawned: string[], task: string): Promise<string> {
  const agent = await project.spawn(task, { exec: { command: COMMAND, env: [], home: [] } });
  spawned.push(agent.id);
  watch.expect(agent.id);
  return agent.id;
}

async function settleReviewing(project: Project, id: string): Promise<AgentInfo> {
  const done = await within(`agent ${id} to settle`, project.wait(id, ['reviewing', 'failed']));
  if (done.state !== 'reviewing') throw new Error(`bench agent ${id} ended ${done.state}: ${done.reason ?? ''}`);
  // a view the kernel refused falls back to a copy of the project, which the summary says: not what is measured here
  if (done.summary?.includes('not sealed') === true) throw new Error(`bench agent ${id} did not run sealed: ${done.summary}`);
  return done;
}

/** Waits for every agent the bench spawned to settle, then closes the project, so nothing writes while its folders go. */
async function closeAll(project: Project, watch: RunningWatch, spawned: readonly string[]): Promise<void> {
  await Promise.allSettled(spawned.map((id) => within(`agent ${id} to settle`, project.wait(id, ['reviewing', 'failed']))));
  await watch.stop();
  await project.close();
}

/** When each agent's command was about to start (`performance.now()`), from the project's `agent.log` events. */
interface RunningWatch {
  expect(id: string): void;
  /** The moment `id` was running; rejects if the agent settles without having run. */
  running(id: string, project: Project): Promise<number>;
  stop(): Promise<void>;
}

function watchRunning(project: Project): RunningWatch {
  const arrivals = new Map<string, { at: Promise<number>; resolve: (at: number) => void }>();
  const arrival = (id: string) => {
    let entry = arrivals.get(id);
    if (entry === undefined) {
      let resolve!: (at: number) => void;
      entry = { at: new Promise<number>((r) => (resolve = r)), resolve };
      arrivals.set(id, entry);
    }
    return entry;
  };
  const events = project.events()[Symbol.asyncIterator]();
  const reading = (async () => {
    for (let next = await events.next(); next.done !== true; next = await events.next()) {
      const event: CairnEvent = next.value;
      if (event.type === 'agent.log' && event.message.startsWith('running ')) arrival(event.agentId).resolve(performance.now());
    }
  })();
  return {
    expect: (id) => void arrival(id),
    running: (id, project) =>
      within(
        `agent ${id} to run its command`,
        Promise.race([
          arrival(id).at,
          project.wait(id, ['reviewing', 'failed']).then((done): never => {
            throw new Error(`bench agent ${id} ended ${done.state} before its command ran: ${done.reason ?? ''}`);
          }),
        ]),
      ),
    stop: async () => {
      await events.return?.();
      await reading;
    },
  };
}

function timeOne(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}
