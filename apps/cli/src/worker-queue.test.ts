import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundCairn } from './test-support/background-cairn.js';
import { freePort, redisAvailable } from './test-support/redis-server.js';
import { resultOf, runCairn } from './test-support/run-cairn.js';
import { startCluster, type WorkerCluster } from './test-support/worker-cluster.js';

const hasRedis = redisAvailable();

/** A program agent: writes its own file and submits. */
function program(name: string): string {
  return `await write_file('out/${name}.txt', '${name}\\n');\nawait submit_result('wrote ${name}', ['out/${name}.txt']);\n`;
}

/** The events the coordinator printed for one agent. */
function eventsOf(coordinator: BackgroundCairn, id: string): Record<string, unknown>[] {
  return coordinator.lines.flatMap((line) => {
    const event = line.event as Record<string, unknown> | undefined;
    return event?.agentId === id ? [event] : [];
  });
}

describe.skipIf(!hasRedis)('queued agents and the workers that take them', () => {
  let cluster: WorkerCluster;

  beforeAll(async () => {
    cluster = await startCluster({ workers: ['q1'], upFlags: ['--worker-wait-ms', '2000'] });
  });

  afterAll(async () => {
    await cluster?.close();
  });

  it('shows an agent queued until a worker takes it; with none connected it says so, and `spawn --wait` returns with the fix', async () => {
    writeFileSync(join(cluster.base, 'first.js'), program('first'));
    const spawned = await cluster.cairn(['spawn', 'first', '--code', join(cluster.base, 'first.js'), '--wait', '--json']);
    expect(spawned.code, spawned.stdout).toBe(1);
    const said = resultOf(spawned) as { agent: { id: string; state: string }; waiting: { reason: string; hint: string } };
    const id = said.agent.id;
    expect(said.agent.state).toBe('queued');
    expect(said.waiting.reason).toBe('no trusted worker took it in 2 s, and none is connected to the queue');
    expect(said.waiting.hint).toMatch(
      /^start a worker \(cairn worker --queue redis:\/\/127\.0\.0\.1:\d+ --coordinator http:\/\/127\.0\.0\.1:\d+ --token "\$\(cat .*worker-token\)"\); or let the coordinator run such agents itself: "withoutWorkers": "run-here" in \.cairn\/config\.json/,
    );
    const text = await cluster.cairn(['spawn', 'second', '--code', join(cluster.base, 'first.js'), '--wait']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(
      / is still queued: no trusted worker took it in 2 s, and none is connected to the queue\n {2}hint: start a worker/,
    );
    const second = /spawned ([0-9a-f]+): second/.exec(text.stdout)![1]!;
    const listed = await cluster.cairn(['ls']);
    expect(listed.stdout).toMatch(
      /\n2 queued \([0-9a-f]+, [0-9a-f]+\): no trusted worker took it in 2 s, and none is connected to the queue\n/,
    );
    expect((await cluster.cairn(['status', id])).stdout).toMatch(/\nwaiting: {2}no trusted worker took it in 2 s/);
    expect((await cluster.cairn(['status'])).stdout).toMatch(/\nwaiting: {2}2 queued/);
    expect(eventsOf(cluster.coordinator, id).filter((e) => e.type === 'agent.waiting')).toEqual([
      expect.objectContaining({ reason: said.waiting.reason, hint: said.waiting.hint, then: 'wait' }),
    ]);
    // nothing ran: no run started, no worker named
    expect(eventsOf(cluster.coordinator, id).some((e) => e.type === 'agent.started')).toBe(false);
    const worker = cluster.startWorker('q1');
    try {
      const agents = await cluster.waitForStates([id], ['reviewing', 'failed']);
      expect(agents.map((a) => [a.state, a.worker, a.reason])).toEqual([['reviewing', 'q1', undefined]]);
      const order = eventsOf(cluster.coordinator, id).map((e) => e.type);
      expect(order.indexOf('agent.waiting')).toBeLessThan(order.indexOf('agent.started'));
      await cluster.waitForStates([second], ['reviewing']);
    } finally {
      await worker.stop();
    }
  });

  it('takes a rejected queued agent off the Redis queue: a worker started later never runs it', async () => {
    const id = await cluster.queueProgram('rejected while queued', program('rejected'));
    const [queued] = await cluster.waitForStates([id], ['queued']);
    expect(queued!.worker).toBeUndefined();
    const rejected = await cluster.cairn(['reject', id, '--reason', 'not now', '--json']);
    expect(rejected.code, rejected.stdout).toBe(0);
    const info = (await (
      await fetch(`${cluster.endpoint.url}/info`, { headers: { authorization: `Bearer ${cluster.endpoint.bearer}` } })
    ).json()) as { queue: string };
    const onRedis = () =>
      execFileSync('redis-cli', ['-p', String(cluster.redis.port), 'exists', `bull:${info.queue}:${id}-1`], { encoding: 'utf8' }).trim();
    for (let i = 0; i < 100 && onRedis() !== '0'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(onRedis()).toBe('0');
    const worker = cluster.startWorker('q1');
    try {
      const next = await cluster.queueProgram('after the reject', program('after'));
      await cluster.waitForStates([next], ['reviewing']);
      const agent = await cluster.status(id);
      expect([agent.state, agent.worker]).toEqual(['rejected', undefined]);
    } finally {
      await worker.stop();
    }
  });

  it('follows an agent waiting on the queue again after the coordinator is killed and started again', async () => {
    const id = await cluster.queueProgram('waits through a restart', program('restart'));
    await cluster.waitForStates([id], ['queued']);
    cluster.coordinator.child.kill('SIGKILL');
    await cluster.coordinator.stop();
    await cluster.startCoordinator();
    const worker = cluster.startWorker('q1');
    try {
      const [agent] = await cluster.waitForStates([id], ['reviewing', 'failed']);
      expect([agent!.state, agent!.worker, agent!.reason]).toEqual(['reviewing', 'q1', undefined]);
      // the job put on the queue before the restart is the one that ran: nothing was lost or put there twice
      expect(eventsOf(cluster.coordinator, id).some((e) => String(e.message).includes('put there again'))).toBe(false);
    } finally {
      await worker.stop();
    }
  });

  it('runs an agent no trusted worker takes on the coordinator itself, where the project allows it', async () => {
    cluster.coordinator.child.kill('SIGTERM');
    await cluster.coordinator.stop();
    await cluster.startCoordinator(['--worker-wait-ms', '2000', '--without-workers', 'run-here']);
    writeFileSync(join(cluster.base, 'here.js'), program('here'));
    const spawned = await cluster.cairn(['spawn', 'run here', '--code', join(cluster.base, 'here.js'), '--wait', '--json']);
    expect(spawned.code, spawned.stdout).toBe(0);
    const agent = resultOf(spawned).agent as Record<string, unknown>;
    expect([agent.state, agent.worker, agent.reason]).toEqual(['reviewing', undefined, undefined]);
    expect(eventsOf(cluster.coordinator, agent.id as string).find((e) => e.type === 'agent.waiting')).toMatchObject({
      reason: 'no trusted worker took it in 2 s, and none is connected to the queue; it runs on the coordinator instead',
      then: 'run-here',
    });
    expect((await cluster.cairn(['replay', agent.id as string])).code).toBe(0);
  });

  it('prints the command a worker runs, with its token, when the coordinator starts in the background', async () => {
    const folder = join(cluster.base, 'detached');
    mkdirSync(folder);
    writeFileSync(join(folder, 'README.md'), '# detached\n');
    const home = join(cluster.base, 'detached-home');
    const port = await freePort();
    const up = await runCairn(['up', '--detach', '--queue', cluster.redis.url, '--serve-workers', `127.0.0.1:${port}`], {
      cwd: folder,
      home,
    });
    try {
      expect(up.code, up.stderr).toBe(0);
      const token = readFileSync(join(folder, '.agentfs', 'remote', 'worker-token'), 'utf8').trim();
      expect(up.stdout).toContain(
        `  start a worker: cairn worker --queue ${cluster.redis.url} --coordinator http://127.0.0.1:${port} --token ${token}\n`,
      );
    } finally {
      expect((await runCairn(['down'], { cwd: folder, home })).code).toBe(0);
    }
  });
});

describe.skipIf(!hasRedis)('queued agents while Redis is stopped', () => {
  let cluster: WorkerCluster;

  beforeAll(async () => {
    cluster = await startCluster({ workers: ['r1'], upFlags: ['--worker-wait-ms', '2000'] });
  });

  afterAll(async () => {
    await cluster?.close();
  });

  it('says the queue does not answer (ls, spawn --wait), nothing hangs, and the agents run once Redis is back', async () => {
    const worker = cluster.startWorker('r1');
    try {
      await worker.waitFor((line) => line.type === 'result');
      await cluster.redis.pause();
      const queued = await cluster.queueProgram('queued while redis is away', program('away'));
      writeFileSync(join(cluster.base, 'away.js'), program('away-2'));
      const spawned = await cluster.cairn([
        'spawn',
        'spawned while redis is away',
        '--code',
        join(cluster.base, 'away.js'),
        '--wait',
        '--json',
      ]);
      expect(spawned.code, spawned.stdout).toBe(1);
      const said = resultOf(spawned) as { agent: { id: string; state: string }; waiting: { reason: string; hint: string } };
      const reason = `the queue at ${cluster.redis.url} does not answer, so no worker can take it`;
      expect([said.agent.state, said.waiting.reason]).toEqual(['queued', reason]);
      expect(said.waiting.hint).toMatch(/^start Redis again/);
      await cluster.waitForStates([queued], ['queued']);
      for (let i = 0; i < 100 && (await cluster.status(queued)).reason !== reason; i++)
        await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await cluster.cairn(['ls'])).stdout).toContain(`2 queued (${queued}, ${said.agent.id}): ${reason}\n`);
      await cluster.redis.resume();
      const agents = await cluster.waitForStates([queued, said.agent.id], ['reviewing', 'failed']);
      expect(agents.map((a) => [a.state, a.worker, a.reason])).toEqual([
        ['reviewing', 'r1', undefined],
        ['reviewing', 'r1', undefined],
      ]);
    } finally {
      await worker.stop();
    }
  });
});
