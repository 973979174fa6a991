import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable } from './test-support/redis-server.js';
import { CAIRN_BIN } from './test-support/run-cairn.js';
import { startCluster, type WorkerCluster } from './test-support/worker-cluster.js';

const hasRedis = redisAvailable();

/** A program that takes a while (many governed calls), then writes its own file. */
function slow(name: string, calls = 3000): string {
  return `for (let i = 0; i < ${calls}; i++) await file_exists('README.md');\nawait write_file('${name}.txt', 'slow\\n');\nawait submit_result('slow', ['${name}.txt']);\n`;
}

/** `cairn worker` as people run it (lines, not JSON), with what it printed and how it ended. */
interface TextWorker {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal) once it ends, `timeout` if it runs on past `ms`. */
  ended(ms: number): Promise<number | string>;
  /** Its process and every process under it, while they run. */
  tree(): number[];
}

function descendants(pid: number): number[] {
  let children: number[];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    children = [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasRedis)('stopping a worker', () => {
  let cluster: WorkerCluster;
  const started: TextWorker[] = [];

  function startTextWorker(name: string, flags: readonly string[] = []): TextWorker {
    const child = spawn(
      process.execPath,
      [
        CAIRN_BIN,
        'worker',
        '--queue',
        cluster.redis.url,
        '--coordinator',
        cluster.endpoint.url,
        '--token',
        cluster.endpoint.bearer,
        '--name',
        name,
        '--concurrency',
        '1',
        ...flags,
      ],
      {
        cwd: cluster.base,
        env: { ...process.env, CAIRN_HOME: join(cluster.base, `home-${name}`), NO_COLOR: '1', CAIRN_WORKER_LOCK_MS: '5000' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
    const worker: TextWorker = {
      child,
      output: () => output,
      ended: (ms) => {
        let timer: NodeJS.Timeout | undefined;
        return Promise.race([exit, new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))]).finally(() =>
          clearTimeout(timer),
        );
      },
      tree: () => [child.pid!, ...descendants(child.pid!)],
    };
    started.push(worker);
    return worker;
  }

  async function until(what: string, test: () => boolean | Promise<boolean>, ms = 120_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await test())) {
      if (Date.now() > deadline) throw new Error(`${what}: not in time`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function runsOn(id: string, name: string): Promise<void> {
    await until(`agent ${id} running on ${name}`, async () => {
      const agent = await cluster.status(id);
      return agent.state === 'running' && agent.worker === name;
    });
  }

  beforeAll(async () => {
    cluster = await startCluster({ workers: ['s1', 's2'] });
  });

  afterAll(async () => {
    for (const worker of started) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
    await cluster?.close();
  });

  it('finishes the running agent on one signal, then stops; the log numbers attempts one way', async () => {
    const worker = startTextWorker('s1', ['--grace', '120']);
    await until('worker up', () => worker.output().includes('worker is up'));
    const id = await cluster.queueProgram('finished on a stop', slow('finished', 2000));
    await runsOn(id, 's1');
    worker.child.kill('SIGTERM');
    expect(await worker.ended(120_000)).toBe(0);
    const [agent] = await cluster.waitForStates([id], ['reviewing', 'failed']);
    expect([agent!.state, agent!.worker, agent!.reason]).toEqual(['reviewing', 's1', undefined]);
    expect(worker.output()).toMatch(
      new RegExp(
        `agent ${id} attempt 1 taken: finished on a stop\\n[\\s\\S]*finishing the 1 running agent \\(120 s at most; stop again to leave them now[\\s\\S]*agent ${id} attempt 1 done\\n[\\s\\S]*worker is down\\n`,
      ),
    );
    expect(worker.output()).not.toMatch(/\(run \d+\)/);
  });

  it('leaves the running agent on a second signal: its job goes back on the queue, and another worker runs it', async () => {
    const leaving = startTextWorker('s1');
    await until('worker up', () => leaving.output().includes('worker is up'));
    const id = await cluster.queueProgram('left on a stop', slow('left', 8000));
    await runsOn(id, 's1');
    const tree = leaving.tree();
    expect(tree.length).toBeGreaterThan(1);
    leaving.child.kill('SIGTERM');
    await until('first signal said', () => leaving.output().includes('finishing the 1 running agent'));
    leaving.child.kill('SIGTERM');
    expect(await leaving.ended(20_000)).toBe(130);
    expect(leaving.output()).toContain('leaving the running agents: their jobs go back on the queue for another worker');
    // the job is handed back at once: the agent is queued again, for another worker
    await until('agent queued again', async () => (await cluster.status(id)).state === 'queued', 10_000);
    await until('no process left', () => tree.every((pid) => !alive(pid)), 10_000);
    const other = startTextWorker('s2');
    const [agent] = await cluster.waitForStates([id], ['reviewing', 'failed']);
    expect([agent!.state, agent!.worker, agent!.reason]).toEqual(['reviewing', 's2', undefined]);
    expect(other.output()).toContain(`agent ${id} attempt 1 taken again (the worker that had it stopped): left on a stop`);
    other.child.kill('SIGINT');
    expect(await other.ended(20_000)).toBe(0);
    expect(other.output()).toContain('stopping: no agent runs here');
  });

  it('stops at once on one signal while Redis is away, saying so once; no process is left', async () => {
    const worker = startTextWorker('s1');
    await until('worker up', () => worker.output().includes('worker is up'));
    const tree = worker.tree();
    await cluster.redis.stop();
    // long enough for many reconnections
    await new Promise((resolve) => setTimeout(resolve, 8000));
    expect(worker.output().match(/does not answer/g)).toHaveLength(1);
    expect(worker.output()).toMatch(
      /the queue at redis:\/\/127\.0\.0\.1:\d+ does not answer \(.*ECONNREFUSED.*\); retrying quietly until it does\n/,
    );
    const asked = Date.now();
    worker.child.kill('SIGINT');
    expect(await worker.ended(15_000)).toBe(0);
    expect(Date.now() - asked).toBeLessThan(15_000);
    expect(worker.output()).toMatch(/stopping: no agent runs here\n[\s\S]*worker is down\n/);
    await until('no process left', () => tree.every((pid) => !alive(pid)), 5000);
  });
});
