import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programAnswer, startScriptedOllama } from '@cairn/orchestrator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackgroundCairn, startCairn } from './test-support/background-cairn.js';
import { startCorruptingProxy } from './test-support/corrupting-proxy.js';
import { freePort, type RedisServer, redisAvailable, startRedis } from './test-support/redis-server.js';
import { resultOf, runCairn } from './test-support/run-cairn.js';

const hasRedis = redisAvailable();

/** A program agent: writes its own file and submits. */
function program(n: number): string {
  return `await write_file('out/agent-${n}.txt', 'made by agent ${n}\\n');\nawait submit_result('wrote agent-${n}.txt', ['out/agent-${n}.txt']);\n`;
}

describe.skipIf(!hasRedis)('agents on workers fed by a Redis queue', () => {
  let base: string;
  let root: string;
  let redis: RedisServer;
  const running: BackgroundCairn[] = [];
  let coordinator: BackgroundCairn;
  let endpoint: { url: string; bearer: string };
  let port: number;
  const home = () => join(base, 'coordinator-home');
  const cairn = (args: readonly string[], env?: NodeJS.ProcessEnv) =>
    runCairn(args, { cwd: root, home: home(), ...(env === undefined ? {} : { env }) });

  async function enroll(name: string): Promise<string> {
    const run = await runCairn(['worker', 'enroll', '--name', name, '--json'], { cwd: base, home: join(base, `home-${name}`) });
    expect(run.code).toBe(0);
    return resultOf(run).key as string;
  }

  function startWorker(name: string, homeOf = name, env: NodeJS.ProcessEnv = {}): BackgroundCairn {
    const worker = startCairn(
      ['worker', '--queue', redis.url, '--coordinator', endpoint.url, '--token', endpoint.bearer, '--name', name, '--concurrency', '2'],
      { cwd: base, home: join(base, `home-${homeOf}`), env },
    );
    running.push(worker);
    return worker;
  }

  async function waitForStates(ids: readonly string[], states: readonly string[]): Promise<Record<string, unknown>[]> {
    for (let i = 0; i < 600; i++) {
      const listed = resultOf(await cairn(['ls', '--json'])).agents as Record<string, unknown>[];
      const ours = listed.filter((a) => ids.includes(a.id as string));
      if (ours.length === ids.length && ours.every((a) => states.includes(a.state as string))) return ours;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`agents did not reach ${states.join('/')}`);
  }

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'cairn-workers-'));
    root = join(base, 'project');
    mkdirSync(join(root, '.cairn'), { recursive: true });
    writeFileSync(join(root, 'README.md'), '# a project\n');
    redis = await startRedis();
    const keys: Record<string, string> = {};
    for (const name of ['w1', 'w2', 'w3']) keys[name] = await enroll(name);
    // `rogue` is listed with w1's key but signs with its own
    keys.rogue = keys.w1!;
    await enroll('rogue-home');
    writeFileSync(join(root, '.cairn', 'config.json'), JSON.stringify({ workers: keys }, null, 2));
    port = await freePort();
    await startCoordinator();
    expect(endpoint.url).toBe(`http://127.0.0.1:${port}`);
  });

  async function startCoordinator(): Promise<void> {
    coordinator = startCairn(['up', '--queue', redis.url, '--serve-workers', `127.0.0.1:${port}`], { cwd: root, home: home() });
    running.push(coordinator);
    const up = await coordinator.waitFor((line) => line.type === 'result');
    endpoint = up.workers as { url: string; bearer: string };
  }

  async function queueProgram(task: string, code: string): Promise<string> {
    const file = join(base, `${task.replace(/\W+/g, '-')}.js`);
    writeFileSync(file, code);
    const run = await cairn(['queue', task, '--code', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    return (resultOf(run).agent as { id: string }).id;
  }

  /** Waits until the agent runs on a worker; its name. */
  async function workerOf(id: string): Promise<string> {
    for (let i = 0; i < 600; i++) {
      const agent = resultOf(await cairn(['status', id, '--json'])).agent as Record<string, unknown>;
      if (agent.state === 'running' && typeof agent.worker === 'string') return agent.worker;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`agent ${id} never ran on a worker`);
  }

  /** Waits until the agent runs on worker `name`. */
  async function runsOn(id: string, name: string): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const agent = resultOf(await cairn(['status', id, '--json'])).agent as Record<string, unknown>;
      if (agent.state === 'running' && agent.worker === name) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`agent ${id} never ran on worker ${name}`);
  }

  afterAll(async () => {
    await Promise.all(running.map((p) => p.stop()));
    await redis?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('refuses, in one line, a queue that does not answer and a workers entry that is not a key: nothing starts', async () => {
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const quiet = join(base, 'no-queue');
    mkdirSync(quiet);
    const up = await runCairn(['up', '--queue', closed, '--serve-workers', `127.0.0.1:${await freePort()}`], {
      cwd: quiet,
      home: join(base, 'no-queue-home'),
    });
    expect([up.code, up.stderr.split('\n')[0]]).toEqual([
      1,
      `error: the queue at ${closed} does not answer: connect ECONNREFUSED ${closed.slice(8)}`,
    ]);
    const worker = await runCairn(
      ['worker', '--queue', closed, '--coordinator', endpoint.url, '--token', endpoint.bearer, '--name', 'w1'],
      {
        cwd: base,
        home: join(base, 'home-w1'),
      },
    );
    expect([worker.code, worker.stdout, worker.stderr.split('\n')[0]]).toEqual([
      1,
      '',
      `error: the queue at ${closed} does not answer: connect ECONNREFUSED ${closed.slice(8)}`,
    ]);
    const other = join(base, 'misconfigured');
    mkdirSync(join(other, '.cairn'), { recursive: true });
    writeFileSync(join(other, '.cairn', 'config.json'), JSON.stringify({ workers: { w1: 'ed25519:zzzz' } }));
    const misconfigured = await runCairn(['up', '--queue', redis.url, '--serve-workers', `127.0.0.1:${await freePort()}`], {
      cwd: other,
      home: join(base, 'misconfigured-home'),
    });
    expect([misconfigured.code, misconfigured.stderr.split('\n')[0]]).toEqual([
      1,
      'error: .cairn/config.json: workers.w1: not an Ed25519 public key (ed25519:<64 hex digits>): "ed25519:zzzz"',
    ]);
    expect(misconfigured.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs 20 program agents across three workers, verifies each by replay, and accepts one from the coordinator', async () => {
    const workers = ['w1', 'w2', 'w3'].map((name) => startWorker(name));
    try {
      await runTwenty();
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  });

  async function runTwenty(): Promise<void> {
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) {
      writeFileSync(join(base, `agent-${n}.js`), program(n));
      const run = await cairn(['queue', `write agent ${n}`, '--code', join(base, `agent-${n}.js`), '--json']);
      expect(run.code, run.stderr).toBe(0);
      ids.push((resultOf(run).agent as { id: string }).id);
    }
    const agents = await waitForStates(ids, ['reviewing', 'failed']);
    expect(agents.filter((a) => a.state !== 'reviewing').map((a) => a.reason)).toEqual([]);
    const used = new Set(agents.map((a) => a.worker));
    expect([...used].every((w) => ['w1', 'w2', 'w3'].includes(w as string))).toBe(true);
    expect(used.size).toBeGreaterThanOrEqual(2);
    const table = await cairn(['ls']);
    expect(table.stdout).toMatch(/reviewing .*@w[123] write agent/);
    const replay = await cairn(['replay', ids[0]!, '--json']);
    expect(replay.code, replay.stdout).toBe(0);
    const accept = await cairn(['accept', ids[0]!, '--json']);
    expect(accept.code, accept.stdout).toBe(0);
    expect(readFileSync(join(root, 'out', 'agent-0.txt'), 'utf8')).toBe('made by agent 0\n');
    const again = await cairn(['accept', ids[0]!, '--json']);
    expect(again.code).toBe(1);
  }

  it('refuses the result of a worker signing with a key other than its enrolled one, and marks it untrusted', async () => {
    const rogue = startWorker('rogue', 'rogue-home');
    try {
      await rogueRuns(rogue);
    } finally {
      await rogue.stop();
    }
  });

  async function rogueRuns(rogue: BackgroundCairn): Promise<void> {
    await rogue.waitFor((line) => line.type === 'result');
    writeFileSync(join(base, 'rogue.js'), program(99));
    const run = await cairn(['queue', 'rogue work', '--code', join(base, 'rogue.js'), '--json']);
    const id = (resultOf(run).agent as { id: string }).id;
    const [agent] = await waitForStates([id], ['reviewing', 'failed']);
    expect(agent!.state, JSON.stringify(agent)).toBe('failed');
    expect(agent!.reason).toMatch(/refused: the upload's signature does not verify with worker rogue's enrolled key/);
    const evidence = join(root, '.agentfs', 'remote', 'evidence');
    expect(readFileSync(join(evidence, `${id}-1.1.json`), 'utf8')).toContain('rogue');
    // while untrusted, its next result is refused unread: the worker stops taking jobs, and the agent goes back on
    // the queue, where a trusted worker takes it
    const nextId = await queueProgram('rogue again', slow('rogue-again'));
    const told = await rogue.waitFor((line) => line.type === 'error');
    expect(told.message).toMatch(/the coordinator no longer trusts worker rogue \(.*signature does not verify.*\): it takes no more jobs/);
    expect(told.hint).toBe('a person at the coordinator clears it with `cairn worker trust rogue`');
    // back on the queue, it is `queued` (no worker has it) until a trusted worker takes it
    const [back] = await waitForStates([nextId], ['queued']);
    expect(back!.worker).toBeUndefined();
    // a worker the coordinator does not trust is refused at its start, with the reason
    const again = await runCairn(
      ['worker', '--queue', redis.url, '--coordinator', endpoint.url, '--token', endpoint.bearer, '--name', 'rogue'],
      { cwd: base, home: join(base, 'home-rogue-home') },
    );
    expect([again.code, again.stderr.split('\n')[0]]).toEqual([
      1,
      expect.stringMatching(
        new RegExp(`^error: the coordinator at ${endpoint.url} does not trust worker rogue: .*signature does not verify`),
      ),
    ]);
    const honest = startWorker('w2');
    try {
      // the attempt the untrusted worker took is not a loss: Redis losing the trusted worker's attempt (2) puts the
      // agent on the queue once more, as attempt 3
      await runsOn(nextId, 'w2');
      await redis.restart();
      const [taken] = await waitForStates([nextId], ['reviewing', 'failed']);
      expect([taken!.state, taken!.worker], JSON.stringify(taken)).toEqual(['reviewing', 'w2']);
      const logs = coordinator.lines.map((line) => (line.event as { agentId?: string; message?: string } | undefined) ?? {});
      expect(logs.some((e) => e.agentId === nextId && e.message === `job ${nextId}-2 was lost from the queue; it is put there again`)).toBe(
        true,
      );
    } finally {
      await honest.stop();
    }
    const trust = await cairn(['worker', 'trust', 'rogue', '--json']);
    expect(resultOf(trust).cleared).toBe(true);
  }

  it('fails an agent whose snapshot arrives corrupted, after fetching it twice; nothing runs on a bad base', async () => {
    const proxy = await startCorruptingProxy(endpoint.url);
    const worker = startCairn(
      ['worker', '--queue', redis.url, '--coordinator', proxy.url, '--token', endpoint.bearer, '--name', 'w4', '--concurrency', '1'],
      // a home of its own: no snapshot cached yet
      { cwd: base, home: join(base, 'home-w4') },
    );
    running.push(worker);
    try {
      await worker.waitFor((line) => line.type === 'result');
      const id = await queueProgram('over a bad line', program(7));
      const [agent] = await waitForStates([id], ['reviewing', 'failed']);
      expect(agent!.state).toBe('failed');
      expect(agent!.reason).toMatch(/worker w4: the snapshot [0-9a-f]{64} arrived corrupted 2 times/);
      expect(proxy.snapshots).toBe(2);
    } finally {
      await worker.stop();
      await proxy.close();
    }
  });

  it("refuses a job whose capability token expired: the worker does not run it, and another project's queue is apart", async () => {
    const other = join(base, 'other-project');
    const otherHome = join(base, 'other-home');
    mkdirSync(other);
    writeFileSync(join(other, 'README.md'), '# another project\n');
    const up = startCairn(['up', '--queue', redis.url, '--serve-workers', `127.0.0.1:${await freePort()}`], {
      cwd: other,
      home: otherHome,
      env: { CAIRN_TOKEN_TTL_MS: '1' },
    });
    running.push(up);
    const { workers } = (await up.waitFor((line) => line.type === 'result')) as { workers: { url: string; bearer: string } };
    const worker = startCairn(['worker', '--queue', redis.url, '--coordinator', workers.url, '--token', workers.bearer, '--name', 'w1'], {
      cwd: base,
      home: join(base, 'home-w1'),
    });
    running.push(worker);
    try {
      writeFileSync(join(base, 'late.js'), program(8));
      const queued = await runCairn(['queue', 'too late', '--code', join(base, 'late.js'), '--json'], { cwd: other, home: otherHome });
      const id = (resultOf(queued).agent as { id: string }).id;
      let agent: Record<string, unknown> = {};
      for (let i = 0; i < 600 && agent.state !== 'failed' && agent.state !== 'reviewing'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        agent = resultOf(await runCairn(['status', id, '--json'], { cwd: other, home: otherHome })).agent as Record<string, unknown>;
      }
      expect(agent.state).toBe('failed');
      expect(agent.reason).toMatch(/the capability token expired at .*; the worker did not run the job/);
    } finally {
      await worker.stop();
      await up.stop();
    }
  });

  it('runs model agents on a worker that asks its own model server; the coordinator verifies them with no model', async () => {
    const ollama = await startScriptedOllama([
      programAnswer("await write_file('model.txt', 'from the model\\n');\nawait submit_result('model wrote', ['model.txt']);"),
    ]);
    const worker = startWorker('w2', 'w2', { OLLAMA_HOST: ollama.host });
    try {
      const ids: string[] = [];
      for (let n = 0; n < 3; n++) {
        const run = await cairn(['queue', `model task ${n}`, '--json']);
        ids.push((resultOf(run).agent as { id: string }).id);
      }
      const agents = await waitForStates(ids, ['reviewing', 'failed']);
      expect(agents.map((a) => [a.state, a.worker, a.reason])).toEqual(ids.map(() => ['reviewing', 'w2', undefined]));
      expect(ollama.requests.some((r) => r.path === '/api/chat' || r.path === '/api/generate')).toBe(true);
      const diff = await cairn(['diff', ids[1]!]);
      expect(diff.stdout).toContain('+from the model');
    } finally {
      await worker.stop();
      await ollama.close();
    }
  });

  it('retries once on another worker when the worker running an agent is killed; the dead attempt counts for nothing', async () => {
    const env = { CAIRN_WORKER_LOCK_MS: '5000' };
    const workers = new Map([
      ['w1', startWorker('w1', 'w1', env)],
      ['w3', startWorker('w3', 'w3', env)],
    ]);
    try {
      await Promise.all([...workers.values()].map((w) => w.waitFor((line) => line.type === 'result')));
      const id = await queueProgram('slow', slow('slow-1'));
      const first = await workerOf(id);
      workers.get(first)!.child.kill('SIGKILL');
      const [agent] = await waitForStates([id], ['reviewing', 'failed']);
      const other = first === 'w1' ? 'w3' : 'w1';
      expect([agent!.state, agent!.worker]).toEqual(['reviewing', other]);
      expect((await cairn(['replay', id])).code).toBe(0);
    } finally {
      await Promise.all([...workers.values()].map((w) => w.stop()));
    }
  });

  it('a stalled worker (SIGSTOP) loses its job to another; woken, it cannot complete it, and nothing is accepted twice', async () => {
    const env = { CAIRN_WORKER_LOCK_MS: '5000' };
    const workers = new Map([
      ['w2', startWorker('w2', 'w2', env)],
      ['w3', startWorker('w3', 'w3', env)],
    ]);
    try {
      await Promise.all([...workers.values()].map((w) => w.waitFor((line) => line.type === 'result')));
      const id = await queueProgram('stalled', slow('slow-2'));
      const first = await workerOf(id);
      const stalled = workers.get(first)!;
      stalled.child.kill('SIGSTOP');
      const [agent] = await waitForStates([id], ['reviewing', 'failed']);
      stalled.child.kill('SIGCONT');
      const other = first === 'w2' ? 'w3' : 'w2';
      expect([agent!.state, agent!.worker]).toEqual(['reviewing', other]);
      expect((await cairn(['accept', id, '--json'])).code).toBe(0);
      // the woken worker finishes its run and uploads it as run 1, which nobody would read: it is refused, not kept,
      // and the job is not its to complete
      await coordinator.waitFor((line) => {
        const event = line.event as { agentId?: string; message?: string } | undefined;
        return (
          event?.agentId === id &&
          event.message === `worker ${first} uploaded a result for job ${id}-1 once it was no longer the agent's; not kept`
        );
      });
      const uploads = join(root, '.agentfs', 'remote', 'uploads');
      expect(readdirSync(uploads).filter((name) => name.startsWith(`${id}-`))).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const status = resultOf(await cairn(['status', id, '--json'])).agent as Record<string, unknown>;
      expect([status.state, status.worker]).toEqual(['accepted', other]);
    } finally {
      for (const w of workers.values()) w.child.kill('SIGCONT');
      await Promise.all([...workers.values()].map((w) => w.stop()));
    }
  });

  it('an agent whose job Redis lost in a restart runs again, once, as attempt 2', async () => {
    const worker = startWorker('w1');
    try {
      await worker.waitFor((line) => line.type === 'result');
      const id = await queueProgram('through a redis restart', slow('slow-3'));
      await workerOf(id);
      await redis.restart();
      const [agent] = await waitForStates([id], ['reviewing', 'failed']);
      expect([agent!.state, agent!.reason]).toEqual(['reviewing', undefined]);
      const logs = coordinator.lines.map((line) => (line.event as { agentId?: string; message?: string } | undefined) ?? {});
      expect(logs.some((e) => e.agentId === id && e.message === `job ${id}-1 was lost from the queue; it is put there again`)).toBe(true);
    } finally {
      await worker.stop();
    }
  });

  it('rejects an agent while it runs on a worker: the coordinator stops following it and never reads its result', async () => {
    const worker = startWorker('w2');
    try {
      await worker.waitFor((line) => line.type === 'result');
      const id = await queueProgram('rejected while remote', slow('slow-rejected'));
      await workerOf(id);
      const rejected = await cairn(['reject', id, '--reason', 'not needed', '--json']);
      expect(rejected.code, rejected.stdout).toBe(0);
      const agent = resultOf(await cairn(['status', id, '--json'])).agent as Record<string, unknown>;
      expect([agent.state, (agent.failure as { message?: string } | undefined)?.message]).toEqual([
        'rejected',
        'stopped while it ran on worker w2: rejected',
      ]);
    } finally {
      await worker.stop();
    }
    const after = resultOf(
      await cairn([
        'status',
        (resultOf(await cairn(['ls', '--json'])).agents as { id: string; task: string }[]).find((a) => a.task === 'rejected while remote')!
          .id,
        '--json',
      ]),
    ).agent as Record<string, unknown>;
    expect(after.state).toBe('rejected');
  });

  it('follows a running agent again after the coordinator is killed and started again', async () => {
    const worker = startWorker('w1');
    try {
      await worker.waitFor((line) => line.type === 'result');
      const id = await queueProgram('slow after restart', slow('slow-4'));
      await workerOf(id);
      coordinator.child.kill('SIGKILL');
      await coordinator.stop();
      await startCoordinator();
      const [agent] = await waitForStates([id], ['reviewing', 'failed']);
      expect([agent!.state, agent!.worker, agent!.reason]).toEqual(['reviewing', 'w1', undefined]);
    } finally {
      await worker.stop();
    }
  });

  it('stops with cairn down while its Redis is away, an agent still followed: the daemon is gone, nothing waits for Redis', async () => {
    const away = await startRedis();
    const folder = join(base, 'redis-away');
    mkdirSync(folder);
    writeFileSync(join(folder, 'README.md'), '# another project\n');
    const awayHome = join(base, 'redis-away-home');
    const up = startCairn(['up', '--queue', away.url], { cwd: folder, home: awayHome });
    running.push(up);
    await up.waitFor((line) => line.type === 'result');
    const code = join(base, 'away.js');
    writeFileSync(code, "await write_file('x.txt', 'x\\n');\n");
    const queued = await runCairn(['queue', 'waits for a worker', '--code', code, '--json'], { cwd: folder, home: awayHome });
    expect(queued.code, queued.stderr).toBe(0);
    await away.stop();
    const exited = new Promise<number | null>((resolve) => up.child.once('exit', (status) => resolve(status)));
    const down = await runCairn(['down'], { cwd: folder, home: awayHome });
    expect(down.code, down.stderr).toBe(0);
    expect(await exited).toBe(0);
  });
});

/** A program that takes a while (many governed calls), then writes its own file. */
function slow(name: string): string {
  return `for (let i = 0; i < 3000; i++) await file_exists('README.md');\nawait write_file('${name}.txt', 'slow\\n');\nawait submit_result('slow', ['${name}.txt']);\n`;
}
