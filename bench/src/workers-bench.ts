import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from '@cairn/daemon';
import type { CairnEvent } from '@cairn/orchestrator';
import { programAnswer, startScriptedOllama } from '@cairn/orchestrator/testing';
import { median, report, scaled, within } from './measure.js';
import { startRedis } from './redis.js';
import type { BenchRow } from './storage-bench.js';
import { enrollWorker, startWorkerProcess, stopProcesses } from './worker-processes.js';

/** What the model takes to answer: it stands for generation time. */
const MODEL_DELAY_MS = 500;
const WORKERS = 4;
const POOL = 3;

// each agent writes a file of its own (the sandbox's Math.random is seeded per agent, so a replay agrees)
const PROGRAM = [
  "const name = 'out/' + Math.random().toString(36).slice(2, 10) + '.txt';",
  "await write_file(name, 'an agent was here\\n');",
  "await submit_result('wrote ' + name, [name]);",
].join('\n');

/**
 * Agents through one local pool (the daemon's, 3 at once) against the same daemon feeding 4 `cairn worker`
 * processes (3 at once each) through Redis, all on this machine, the model answering after a fixed delay.
 * Reports throughput, and the coordinator's overhead per remote agent (snapshot fetch, upload, verification,
 * following the job) as a ratio of the agent's own run time. Skipped without redis-server.
 */
export async function benchWorkers(work: string): Promise<BenchRow[]> {
  const redis = await startRedis(work);
  if (redis === undefined) {
    report('[workers] missing redis-server: apt-get install redis-server (skipped)');
    return [];
  }
  const agents = scaled(40);
  const ollama = await startScriptedOllama(() => ({ ...programAnswer(PROGRAM), headerDelayMs: MODEL_DELAY_MS }));
  const processes: ChildProcess[] = [];
  try {
    const local = await runAgents(join(work, 'local'), agents, { ollamaHost: ollama.host });
    const remote = await runAgents(join(work, 'remote'), agents, {
      ollamaHost: ollama.host,
      queue: redis.url,
      processes,
    });
    const overhead = median(remote.overheads);
    return [
      {
        tree: `${agents} model agents, model answers in ${MODEL_DELAY_MS} ms`,
        measure: `throughput, 1 local pool (${POOL}) vs ${WORKERS} workers (${POOL} each)`,
        unit: 'agents/s',
        cairn: remote.perSecond,
        others: { 'local pool': local.perSecond },
        goal: 'workers scale with their slots',
      },
      {
        tree: `${agents} model agents, model answers in ${MODEL_DELAY_MS} ms`,
        measure: 'coordinator overhead per remote agent (fetch, upload, verification) / its run time, median',
        unit: 'ratio',
        cairn: overhead,
        others: {},
        goal: 'well under 1',
      },
    ];
  } finally {
    await stopProcesses(processes);
    await redis.stop();
    await ollama.close();
  }
}

interface Outcome {
  perSecond: number;
  overheads: number[];
}

async function runAgents(
  base: string,
  count: number,
  options: { ollamaHost: string; queue?: string; processes?: ChildProcess[] },
): Promise<Outcome> {
  const root = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(join(root, '.cairn'), { recursive: true });
  writeFileSync(join(root, 'README.md'), '# bench\n');
  const remote = options.queue !== undefined;
  if (remote) {
    const keys: Record<string, string> = {};
    for (let w = 0; w < WORKERS; w++) keys[`w${w}`] = enrollWorker(join(base, `worker-${w}`), `w${w}`);
    writeFileSync(join(root, '.cairn', 'config.json'), JSON.stringify({ workers: keys }));
  }
  const daemon = await startDaemon(root, {
    cairnHome: home,
    ollamaHost: options.ollamaHost,
    poolSize: POOL,
    ...(options.queue === undefined ? {} : { remote: { queue: options.queue, serveWorkers: '127.0.0.1:0' } }),
  });
  try {
    if (remote) {
      const { url, bearer } = daemon.workers!;
      for (let w = 0; w < WORKERS; w++)
        options.processes!.push(
          startWorkerProcess({
            home: join(base, `worker-${w}`),
            name: `w${w}`,
            queue: options.queue!,
            coordinator: url!,
            bearer,
            concurrency: POOL,
            env: { OLLAMA_HOST: options.ollamaHost },
          }),
        );
    }
    const taken = new Map<string, number>();
    const done = new Map<string, number>();
    const events = daemon.project.events();
    const finished = (async () => {
      for await (const event of events as AsyncIterable<CairnEvent>) {
        const at = Date.parse(event.time);
        if (event.type === 'agent.log' && event.message.startsWith('running on worker')) taken.set(event.agentId, at);
        if (event.type === 'agent.submitted' || event.type === 'agent.failed') {
          done.set(event.agentId, at);
          if (done.size === count) return;
        }
      }
    })();
    const start = Date.now();
    const ids: string[] = [];
    for (let n = 0; n < count; n++) ids.push((await daemon.project.queue(`write ${n}`, { model: 'qwen2.5-coder:7b' })).id);
    await within(`${count} agents`, finished);
    const seconds = (Math.max(...done.values()) - start) / 1000;
    const overheads: number[] = [];
    for (const id of ids) {
      const agent = await daemon.project.agent(id);
      if (agent.state !== 'reviewing') throw new Error(`agent ${id} ended ${agent.state}: ${agent.reason ?? ''}`);
      const from = taken.get(id);
      if (from !== undefined && agent.spent.wallMs > 0) overheads.push((done.get(id)! - from - agent.spent.wallMs) / agent.spent.wallMs);
    }
    return { perSecond: count / seconds, overheads };
  } finally {
    await daemon.stop();
  }
}
