import { chmodSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import type { CairnEvent } from '@cairn/api';
import { isCairnError } from '@cairn/api';
import { projectLayout } from '@cairn/orchestrator';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '@cairn/orchestrator/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonHoldsProject } from './daemon-lock.js';
import { type RunningDaemon, startDaemon } from './run-daemon.js';
import { connectDaemon, DaemonClient } from './socket-client.js';

let temp: TempProject;
let daemon: RunningDaemon | undefined;

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  temp.cleanup();
});

/** GET over the socket with node:http, as curl --unix-socket would. */
function get(socketPath: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET', headers: { host: 'cairn' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the daemon', () => {
  it('serves the orchestrator API over a 0600 Unix socket, with events as NDJSON', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    daemon = await startDaemon(temp.root, { cairnHome: temp.home });
    expect(daemon.sync.files).toBeGreaterThan(3);
    expect(statSync(daemon.socketPath).mode & 0o777).toBe(0o600);
    const health = await get(daemon.socketPath, '/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true, pid: process.pid });

    const client = (await connectDaemon(temp.root, daemon.socketPath))!;
    const events: CairnEvent[] = [];
    const stream = await client.subscribe();
    const spawned = await client.spawn('add a file', { code: `await write_file('new.txt', 'hello');` });
    for (;;) {
      const next = await stream.next();
      if (next.done === true) break;
      events.push(next.value);
      if (next.value.type === 'agent.submitted' || next.value.type === 'agent.failed') break;
    }
    await stream.return?.();
    expect(events.map((e) => e.type)).toContain('agent.started');
    expect(events.at(-1)!.type).toBe('agent.submitted');
    const listed = JSON.parse((await get(daemon.socketPath, '/agents')).body) as { id: string; state: string }[];
    expect(listed).toEqual([expect.objectContaining({ id: spawned.id, state: 'reviewing' })]);
    expect(await client.diff(spawned.id)).toContain('+hello');
    const accepted = await client.accept(spawned.id);
    expect(accepted.ok).toBe(true);
    expect(temp.read('new.txt')).toBe('hello');
    const missing = await client.agent('nope').catch((e: unknown) => e);
    expect(isCairnError(missing, 'CAIRN_NOT_FOUND')).toBe(true);
    await client.close();
  });

  it('stops, saying why, once its project folder is moved away', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    const events: CairnEvent[] = [];
    daemon = await startDaemon(temp.root, { cairnHome: temp.home, onEvent: (event) => events.push(event) });
    const moved = `${temp.root}-moved`;
    renameSync(temp.root, moved);
    try {
      // looked at every two seconds: a hang would end the test at its own bound
      await daemon.stopped;
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'error',
          code: 'project-gone',
          message: `the project folder ${temp.root} is gone (moved or deleted): the daemon stops`,
        }),
      );
      expect(await connectDaemon(temp.root, daemon.socketPath)).toBeUndefined();
    } finally {
      renameSync(moved, temp.root);
    }
  });

  it("stops, saying why, once the project's .agentfs folder is deleted under it", async () => {
    temp = makeTempProject(SAMPLE_FILES);
    const events: CairnEvent[] = [];
    daemon = await startDaemon(temp.root, { cairnHome: temp.home, onEvent: (event) => events.push(event) });
    const { agentfsDir } = projectLayout(temp.root, temp.home);
    rmSync(agentfsDir, { recursive: true, force: true });
    await daemon.stopped;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'error',
        code: 'project-gone',
        message: `the project's ${agentfsDir} folder is gone (moved or deleted): the daemon stops`,
      }),
    );
  });

  it('refuses a second daemon for the same project, and cleans a stale socket', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    daemon = await startDaemon(temp.root, { cairnHome: temp.home });
    const second = await startDaemon(temp.root, { cairnHome: temp.home }).catch((e: unknown) => e);
    expect(isCairnError(second, 'CAIRN_DAEMON')).toBe(true);
    expect((second as Error).message).toMatch(/already serves/);
    const socketPath = daemon.socketPath;
    await daemon.stop();
    daemon = undefined;
    expect(await connectDaemon(temp.root, socketPath)).toBeUndefined();
    daemon = await startDaemon(temp.root, { cairnHome: temp.home });
    expect(daemon.socketPath).toBe(socketPath);
  });

  it('applies a human edit to stable.db soon after the save, atomic saves included', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    daemon = await startDaemon(temp.root, { cairnHome: temp.home });
    const client = new DaemonClient(temp.root, daemon.socketPath);
    const stream = await client.subscribe();
    const changed = (async () => {
      for (let next = await stream.next(); next.done !== true; next = await stream.next()) {
        if (next.value.type === 'sync.changed' && next.value.paths.includes('src/greet.js')) return next.value;
      }
      return undefined;
    })();
    writeFileSync(join(temp.root, 'src/.greet.js.swp'), 'new');
    writeFileSync(join(temp.root, 'src/greet.js.tmp'), 'export const greet = () => "hi";\n');
    const { renameSync, rmSync } = await import('node:fs');
    renameSync(join(temp.root, 'src/greet.js.tmp'), join(temp.root, 'src/greet.js'));
    rmSync(join(temp.root, 'src/.greet.js.swp'));
    expect((await changed)?.type).toBe('sync.changed');
    await stream.return?.();
    const agent = await client.spawn('read it', { code: `await write_file('copy.txt', await read_file('src/greet.js'));` });
    await client.wait(agent.id);
    expect(await client.proposed(agent.id, 'copy.txt')).toBe('export const greet = () => "hi";\n');
    await client.close();
  });

  it('carries out file signals and moves malformed ones aside with a reason', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    daemon = await startDaemon(temp.root, { cairnHome: temp.home });
    const signals = daemon.project.layout.signalsDir;
    const client = new DaemonClient(temp.root, daemon.socketPath);
    const stream = await client.subscribe();
    const next = async (match: (event: CairnEvent) => boolean) => {
      for (let item = await stream.next(); item.done !== true; item = await stream.next()) if (match(item.value)) return item.value;
      return undefined;
    };
    const submitted = next((e) => e.type === 'agent.submitted').then((e) => (e as { agentId?: string } | undefined)?.agentId);
    writeFileSync(join(signals, 'spawn-1.tmp'), JSON.stringify({ task: 'from a signal', code: `await write_file('signal.txt', 'ok');` }));
    const { renameSync, existsSync, readFileSync } = await import('node:fs');
    renameSync(join(signals, 'spawn-1.tmp'), join(signals, 'spawn-1'));
    const id = await submitted;
    expect(id).toMatch(/^[0-9a-f]{4,}$/);
    const failedEvent = next((e) => e.type === 'error' && e.message.includes('accept-zzzz')) as Promise<{ message: string } | undefined>;
    writeFileSync(join(signals, 'accept-zzzz'), '');
    expect((await failedEvent)?.message).toMatch(/no agent "zzzz"/);
    expect(existsSync(join(signals, 'failed', 'accept-zzzz'))).toBe(true);
    expect(readFileSync(join(signals, 'failed', 'accept-zzzz.reason'), 'utf8')).toMatch(/no agent/);
    await stream.return?.();
    await client.close();
  });

  it('of three daemons started at once exactly one serves; the others are refused before opening anything', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    const starts = await Promise.allSettled([0, 1, 2].map(() => startDaemon(temp.root, { cairnHome: temp.home })));
    const served = starts.filter((s): s is PromiseFulfilledResult<RunningDaemon> => s.status === 'fulfilled');
    expect(served).toHaveLength(1);
    daemon = served[0]!.value;
    for (const refused of starts.filter((s): s is PromiseRejectedResult => s.status === 'rejected')) {
      expect(isCairnError(refused.reason, 'CAIRN_DAEMON')).toBe(true);
      expect((refused.reason as Error).message).toBe(`a daemon already serves ${temp.root} (pid ${process.pid})`);
    }
    const layout = projectLayout(temp.root, temp.home);
    expect(daemonHoldsProject(layout)).toBe(true);
    expect(JSON.parse((await get(daemon.socketPath, '/health')).body)).toMatchObject({ ok: true });
    await daemon.stop();
    daemon = undefined;
    expect(daemonHoldsProject(layout)).toBe(false);
  });

  it('keeps its socket in a folder only its user can enter, even one made wider before it started', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    const folder = dirname(projectLayout(temp.root, temp.home).socketPath);
    mkdirSync(folder, { recursive: true });
    chmodSync(folder, 0o755);
    daemon = await startDaemon(temp.root, { cairnHome: temp.home });
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(daemon.socketPath).mode & 0o777).toBe(0o600);
  });

  it('answers a body over 1 MB with 413 before reading it, and cuts off requests that never finish', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    daemon = await startDaemon(temp.root, { cairnHome: temp.home });
    const socketPath = daemon.socketPath;
    // 50 MB announced, a few bytes sent: the answer comes without the rest.
    const tooLarge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { socketPath, path: '/agents/x/reply', method: 'POST', headers: { host: 'cairn', 'content-length': String(50 << 20) } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
            req.destroy();
          });
        },
      );
      req.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
      req.write('{"feedback": "');
    });
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toMatchObject({ code: 'CAIRN_INVALID_ARGUMENT', message: 'the request body is larger than 1 MB' });
    // Half-sent requests: the daemon closes every one of them within seconds (Node's defaults wait minutes).
    const sockets = await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise<import('node:net').Socket>((resolve, reject) => {
            const socket = connect(socketPath, () => {
              socket.write('POST /agents HTTP/1.1\r\nHost: cairn\r\nContent-Length: 100\r\n\r\n{"ta');
              socket.resume();
              resolve(socket);
            });
            socket.on('error', reject);
          }),
      ),
    );
    const closed = await Promise.all(
      sockets.map(
        (socket) => new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)).once('error', () => resolve(true))),
      ),
    );
    expect(closed.every(Boolean)).toBe(true);
    expect(JSON.parse((await get(socketPath, '/health')).body)).toMatchObject({ ok: true });
  });
});
