import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectDaemon, startDaemon } from '@cairn/daemon';
import { type CairnEvent, openProject, projectLayout } from '@cairn/orchestrator';
import { programAnswer, startScriptedOllama } from '@cairn/orchestrator/testing';
import { commitAll, git, listFiles } from './fixtures.js';
import { median, scaled, timeOnceAsync, within } from './measure.js';
import type { BenchRow } from './storage-bench.js';

const TASKS = scaled(20);

/** Bytes under `dir`, every file counted once. */
function diskBytes(dir: string): number {
  let sum = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sum += diskBytes(path);
    else if (entry.isFile()) sum += statSync(path).size;
  }
  return sum;
}

/** Resolves with the first event from `events` that `match` accepts. */
async function nextEvent(events: AsyncIterator<CairnEvent>, what: string, match: (e: CairnEvent) => boolean): Promise<CairnEvent> {
  return within(
    what,
    (async () => {
      for (;;) {
        const next = await events.next();
        if (next.done) throw new Error(`the event stream ended before ${what}`);
        if (match(next.value)) return next.value;
      }
    })(),
  );
}

/**
 * Seed 001's success criterion through the daemon, with a scripted model answering at once: a human saves a
 * file → the watcher syncs it → an agent spawned on it submits → its preview is written → accept → the change
 * is on disk. And 20 tasks done Cairn's way against the worktree way (`git worktree add`, the same edit,
 * `git diff`, `git merge`), total time and disk.
 */
export async function benchSeed(treeName: string, source: string, work: string): Promise<BenchRow[]> {
  mkdirSync(work, { recursive: true });
  const root = join(work, 'project');
  const home = join(work, 'home');
  cpSync(source, root, { recursive: true });
  const files = listFiles(root).filter((f) => f.endsWith('.js') || f.endsWith('.ts'));
  const target = files[0]!;
  const program = [
    `const text = await read_file(${JSON.stringify(target)});`,
    `await write_file(${JSON.stringify(target)}, text + '// ' + (await get_task()) + '\\n');`,
    `await submit_result('append a line', [${JSON.stringify(target)}]);`,
  ].join('\n');
  const ollama = await startScriptedOllama([programAnswer(program)]);
  const daemon = await startDaemon(root, { cairnHome: home, ollamaHost: ollama.host, debounceMs: 15 });
  const client = await connectDaemon(root, projectLayout(root, home).socketPath);
  if (client === undefined) throw new Error('the daemon does not answer');
  const layout = projectLayout(root, home);
  const loop: number[] = [];
  try {
    // subscribed before the first save, so the sync it causes cannot be missed
    const events = await client.subscribe();
    for (let round = 0; round < scaled(10); round++) {
      loop.push(
        await timeOnceAsync(async () => {
          const synced = nextEvent(events, `the watcher to sync ${target}`, (e) => e.type === 'sync.changed' && e.paths.includes(target));
          writeFileSync(join(root, target), `${readFileSync(join(root, target), 'utf8')}// human ${round}\n`);
          await synced;
          const agent = await client.spawn(`round ${round}`);
          const done = await within(`agent ${agent.id} to settle`, client.wait(agent.id));
          if (done.state !== 'reviewing') throw new Error(`agent ${agent.id} ended ${done.state}: ${done.reason ?? ''}`);
          if (!existsSync(join(layout.previewsDir, `${agent.id}.diff`))) throw new Error('no preview was written');
          const accepted = await client.accept(agent.id);
          if (!accepted.ok) throw new Error('the accept conflicted');
        }),
      );
      if (!readFileSync(join(root, target), 'utf8').includes(`// round ${round}`)) throw new Error('the change is not on disk');
    }
    await events.return?.();
  } finally {
    await client.close();
    await daemon.stop();
    await ollama.close();
  }

  // Twenty tasks, each editing its own file: Cairn (spawn, review, accept) against git worktrees.
  const cairnRoot = join(work, 'cairn-20');
  const gitRoot = join(work, 'git-20');
  cpSync(source, cairnRoot, { recursive: true });
  cpSync(source, gitRoot, { recursive: true });
  commitAll(gitRoot);
  const edit = (text: string, i: number) => `${text}// task ${i}\n`;
  const project = openProject(cairnRoot, { cairnHome: join(work, 'home-20'), poolSize: 8 });
  let cairnMs: number;
  let cairnDisk: number;
  try {
    await project.sync();
    const before = diskBytes(join(cairnRoot, '.agentfs'));
    cairnMs = await timeOnceAsync(async () => {
      const agents = await Promise.all(
        Array.from({ length: TASKS }, (_, i) => {
          const file = files[i % files.length]!;
          const code = `await write_file(${JSON.stringify(file)}, (await read_file(${JSON.stringify(file)})) + '// task ${i}\\n');`;
          return project.queue(`task ${i}`, { code });
        }),
      );
      for (const agent of agents) await within(`agent ${agent.id} to settle`, project.wait(agent.id));
      for (const agent of agents) {
        await project.diff(agent.id);
        const outcome = await project.accept(agent.id);
        if (!outcome.ok) throw new Error(`task ${agent.task} conflicted`);
      }
    });
    cairnDisk = diskBytes(join(cairnRoot, '.agentfs')) - before;
  } finally {
    await project.close();
  }
  let worktreeDisk = 0;
  const worktreeMs = await timeOnceAsync(async () => {
    for (let i = 0; i < TASKS; i++) {
      const dir = join(work, `wt20-${i}`);
      const file = files[i % files.length]!;
      git(gitRoot, 'worktree', 'add', '-q', '-b', `task-${i}`, dir, 'HEAD');
      writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8'), i));
      git(dir, 'commit', '-q', '-am', `task ${i}`);
      git(gitRoot, 'diff', `main...task-${i}`);
      worktreeDisk += diskBytes(dir);
      git(gitRoot, 'merge', '-q', '--no-edit', `task-${i}`);
    }
  });
  return [
    {
      tree: treeName,
      measure: 'seed 001 end to end: save → synced → agent (model at once) submits → preview → accept → on disk',
      unit: 'ms',
      cairn: median(loop),
      others: {},
      goal: '≤ 300 ms',
    },
    {
      tree: treeName,
      measure: `${TASKS} tasks: spawn, review, accept (Cairn) vs worktree add, edit, commit, diff, merge`,
      unit: 'ms total',
      cairn: cairnMs,
      others: { 'git worktree': worktreeMs },
      goal: 'faster than worktrees',
    },
    {
      tree: treeName,
      measure: `${TASKS} tasks: disk used by the agents' copies`,
      unit: 'MB',
      cairn: cairnDisk / 1e6,
      others: { 'git worktree': worktreeDisk / 1e6 },
      goal: 'smaller than worktrees',
    },
  ];
}
