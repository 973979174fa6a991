import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackgroundCairn, startCairn } from './background-cairn.js';
import { freePort, type RedisServer, startRedis } from './redis-server.js';
import { type CairnRun, resultOf, runCairn } from './run-cairn.js';

/** A coordinator (`cairn up --queue … --serve-workers …`) on a real Redis, with enrolled workers to start. */
export interface WorkerCluster {
  base: string;
  root: string;
  redis: RedisServer;
  coordinator: BackgroundCairn;
  endpoint: { url: string; bearer: string };
  /** `cairn …` in the project, as the coordinator's user. */
  cairn(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<CairnRun>;
  /** Starts `cairn worker` named `name` (enrolled at setup), with `flags` added. */
  startWorker(name: string, options?: { env?: NodeJS.ProcessEnv; flags?: readonly string[]; concurrency?: number }): BackgroundCairn;
  /** (Re)starts the coordinator with `flags` added to `cairn up`. */
  startCoordinator(flags?: readonly string[], env?: NodeJS.ProcessEnv): Promise<void>;
  /** Queues a program agent from `code` (the file's extension says its language). */
  queueProgram(task: string, code: string, ext?: 'js' | 'py'): Promise<string>;
  /** Waits until every agent of `ids` is in one of `states`; their records. */
  waitForStates(ids: readonly string[], states: readonly string[], tries?: number): Promise<Record<string, unknown>[]>;
  /** The agent's record as `cairn status --json` gives it. */
  status(id: string): Promise<Record<string, unknown>>;
  /** Every process started, stopped; Redis stopped; the folders removed. */
  close(): Promise<void>;
}

/** What a cluster is made of. */
export interface ClusterOptions {
  /** Workers to enroll and list in `.cairn/config.json`. */
  workers: readonly string[];
  /** Added to `.cairn/config.json` beside `workers`. */
  config?: Record<string, unknown>;
  /** Files of the project. */
  files?: Record<string, string>;
  /** Flags added to the coordinator's `cairn up`. */
  upFlags?: readonly string[];
  /** Environment of the coordinator. */
  upEnv?: NodeJS.ProcessEnv;
  /** Do not start the coordinator yet. */
  noCoordinator?: boolean;
}

/** Sets up a project, a Redis, enrolled workers and (unless told not to) its coordinator. */
export async function startCluster(options: ClusterOptions): Promise<WorkerCluster> {
  const base = mkdtempSync(join(tmpdir(), 'cairn-cluster-'));
  const root = join(base, 'project');
  mkdirSync(join(root, '.cairn'), { recursive: true });
  for (const [path, content] of Object.entries({ 'README.md': '# a project\n', ...options.files })) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const redis = await startRedis();
  const running: BackgroundCairn[] = [];
  const home = join(base, 'coordinator-home');
  const keys: Record<string, string> = {};
  for (const name of options.workers) {
    const run = await runCairn(['worker', 'enroll', '--name', name, '--json'], { cwd: base, home: join(base, `home-${name}`) });
    if (run.code !== 0) throw new Error(`enroll ${name}: ${run.stderr}`);
    keys[name] = resultOf(run).key as string;
  }
  writeFileSync(join(root, '.cairn', 'config.json'), JSON.stringify({ workers: keys, ...options.config }, null, 2));
  const port = await freePort();
  const cairn = (args: readonly string[], env?: NodeJS.ProcessEnv) =>
    runCairn(args, { cwd: root, home, ...(env === undefined ? {} : { env }) });
  const cluster: WorkerCluster = {
    base,
    root,
    redis,
    coordinator: undefined as unknown as BackgroundCairn,
    endpoint: { url: '', bearer: '' },
    cairn,
    startWorker: (name, worker = {}) => {
      const started = startCairn(
        [
          'worker',
          '--queue',
          redis.url,
          '--coordinator',
          cluster.endpoint.url,
          '--token',
          cluster.endpoint.bearer,
          '--name',
          name,
          '--concurrency',
          String(worker.concurrency ?? 2),
          ...(worker.flags ?? []),
        ],
        { cwd: base, home: join(base, `home-${name}`), ...(worker.env === undefined ? {} : { env: worker.env }) },
      );
      running.push(started);
      return started;
    },
    startCoordinator: async (flags = options.upFlags ?? [], env = options.upEnv) => {
      const up = startCairn(['up', '--queue', redis.url, '--serve-workers', `127.0.0.1:${port}`, ...flags], {
        cwd: root,
        home,
        ...(env === undefined ? {} : { env }),
      });
      running.push(up);
      const ready = await up.waitFor((line) => line.type === 'result');
      cluster.coordinator = up;
      cluster.endpoint = ready.workers as { url: string; bearer: string };
    },
    queueProgram: async (task, code, ext = 'js') => {
      const file = join(base, `${task.replace(/\W+/g, '-')}.${ext}`);
      writeFileSync(file, code);
      const run = await cairn(['queue', task, '--code', file, '--json']);
      if (run.code !== 0) throw new Error(`queue ${task}: ${run.stderr}`);
      return (resultOf(run).agent as { id: string }).id;
    },
    waitForStates: async (ids, states, tries = 600) => {
      for (let i = 0; i < tries; i++) {
        const listed = resultOf(await cairn(['ls', '--json'])).agents as Record<string, unknown>[];
        const ours = listed.filter((a) => ids.includes(a.id as string));
        if (ours.length === ids.length && ours.every((a) => states.includes(a.state as string))) return ours;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error(`agents did not reach ${states.join('/')}`);
    },
    status: async (id) => resultOf(await cairn(['status', id, '--json'])).agent as Record<string, unknown>,
    close: async () => {
      await Promise.all(running.map((p) => p.stop()));
      await redis.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
  if (options.noCoordinator !== true) await cluster.startCoordinator();
  return cluster;
}
