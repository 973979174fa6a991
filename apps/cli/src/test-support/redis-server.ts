import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The line a test prints (or fails with, under `CAIRN_REQUIRE_REDIS`) where `redis-server` is missing. */
export const MISSING_REDIS = 'missing redis-server: apt-get install redis-server';

/** True when `redis-server` runs here; throws the missing line when `CAIRN_REQUIRE_REDIS` asks for it and it does not. */
export function redisAvailable(env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    const required = env.CAIRN_REQUIRE_REDIS;
    if (required !== undefined && required !== '' && required !== '0') throw new Error(MISSING_REDIS);
    process.stdout.write(`${MISSING_REDIS} (tests that need it are skipped)\n`);
    return false;
  }
}

/** A real redis-server on 127.0.0.1, in its own folder, without persistence unless asked. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops it and starts it again on the same port; without persistence it comes back empty. */
  restart(): Promise<void>;
  /** Stops it, keeping its port, until `resume`. */
  pause(): Promise<void>;
  /** Starts it again on its port after `pause` (empty: nothing persists). */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts redis-server on a free port; resolves once it answers. */
export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-redis-'));
  const port = await freePort();
  let running = await launch(port, dir);
  const stopRunning = async () => {
    if (running.child.exitCode === null) running.child.kill('SIGTERM');
    await running.exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    restart: async () => {
      await stopRunning();
      running = await launch(port, dir);
    },
    pause: stopRunning,
    resume: async () => {
      running = await launch(port, dir);
    },
    stop: async () => {
      await stopRunning();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function launch(port: number, dir: string): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; i < 100; i++) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' });
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { child, exited };
}
