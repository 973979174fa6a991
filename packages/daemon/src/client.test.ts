import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentInfo, CairnEvent } from '@cairn/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DaemonClient } from './socket-client.js';

// A tiny daemon of the test's own on a real Unix socket, answering what a broken or newer daemon might.

const AGENT: AgentInfo = {
  id: 'a1b2',
  task: 'a task',
  state: 'reviewing',
  createdAt: '2026-11-25T00:00:00.000Z',
  updatedAt: '2026-11-25T00:00:01.000Z',
  origin: 'code',
  kind: 'code',
  lang: 'js',
  runs: 1,
  spent: { tokens: 0, bytes: 1, calls: 2, wallMs: 3, repairs: 0 },
};
const HELLO = JSON.stringify({ type: 'hello', time: '2026-11-25T00:00:00.000Z', pid: 1 });
const EVENT: CairnEvent = { type: 'agent.rejected', time: '2026-11-25T00:00:02.000Z', agentId: 'a1b2', reason: 'no' };

type Answer = { status: number; body: string } | { stream: string[] };

let dir: string;
let server: Server;
let client: DaemonClient;
let answer: Answer;
let seen: { method: string; url: string; body: string }[];

function handle(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', body });
    if ('stream' in answer) {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const line of answer.stream) res.write(line + '\n');
      res.end();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-client-'));
  server = createServer(handle);
  const socketPath = join(dir, 'd.sock');
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  client = new DaemonClient('/the/project', socketPath);
});

afterAll(async () => {
  await client.close();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
});

const json = (status: number, value: unknown): Answer => ({ status, body: JSON.stringify(value) });

describe("the client's requests", () => {
  it('come from the wire table: path parameters and queries encoded, JSON bodies for POST', async () => {
    answer = json(200, '');
    await client.diff('a b/c', ['x/y.txt', 'z&.txt']);
    answer = json(201, AGENT);
    await client.spawn('a task', { code: 'await log(1);', lang: 'js' });
    await client.queue('later');
    answer = json(200, [AGENT]);
    await client.agents({ state: ['reviewing', 'failed'] });
    answer = json(200, { ok: true, results: [] });
    await client.processInbox({ threads: ['t.md'] });
    expect(seen).toEqual([
      { method: 'GET', url: '/agents/a%20b%2Fc/diff?path=x%2Fy.txt&path=z%26.txt', body: '' },
      { method: 'POST', url: '/agents', body: JSON.stringify({ code: 'await log(1);', lang: 'js', task: 'a task', mode: 'spawn' }) },
      { method: 'POST', url: '/agents', body: JSON.stringify({ task: 'later', mode: 'queue' }) },
      { method: 'GET', url: '/agents?state=reviewing%2Cfailed', body: '' },
      { method: 'POST', url: '/inbox/process', body: JSON.stringify({ threads: ['t.md'] }) },
    ]);
  });

  it('refuse an empty agent id before sending anything', async () => {
    await expect(client.agent('')).rejects.toMatchObject({ code: 'CAIRN_INVALID_ARGUMENT', message: 'an agent id is required' });
    expect(seen).toEqual([]);
  });
});

describe("the client's reading of answers", () => {
  it('returns a body that parses, without keys its type does not have', async () => {
    answer = json(200, { ...AGENT, fromTheFuture: true });
    expect(await client.agent('a1b2')).toEqual(AGENT);
    answer = json(200, null);
    expect(await client.proposed('a1b2', 'gone.txt')).toBeNull();
  });

  it('refuses a body that does not parse with CAIRN_DAEMON, saying what is wrong', async () => {
    answer = json(200, { ...AGENT, state: 'sleeping' });
    await expect(client.agent('a1b2')).rejects.toMatchObject({
      name: 'CairnError',
      code: 'CAIRN_DAEMON',
      message: expect.stringMatching(/^the daemon's answer to GET \/agents\/:id cannot be read: .*sleeping/),
    });
    // the shape of older daemons: wrapped
    answer = json(200, { agents: [AGENT] });
    await expect(client.agents()).rejects.toMatchObject({ code: 'CAIRN_DAEMON', message: expect.stringContaining('GET /agents') });
    answer = { status: 200, body: 'surely JSON' };
    await expect(client.sync()).rejects.toMatchObject({
      code: 'CAIRN_DAEMON',
      message: expect.stringContaining('not JSON: "surely JSON"'),
    });
    answer = { status: 200, body: '' };
    await expect(client.sync()).rejects.toMatchObject({ code: 'CAIRN_DAEMON', message: expect.stringContaining('not JSON: (nothing)') });
    answer = json(200, { ok: true, applied: [], conflicts: [], agent: { ...AGENT, runs: '1' } });
    await expect(client.accept('a1b2')).rejects.toMatchObject({ code: 'CAIRN_DAEMON' });
    // ok: true with conflicts is not an accept outcome
    answer = json(200, { ok: true, applied: [], conflicts: [{ path: 'a', reason: 'content', hunks: [] }], agent: AGENT });
    await expect(client.accept('a1b2')).rejects.toMatchObject({ code: 'CAIRN_DAEMON' });
  });

  it("maps an error body to its CairnError, and a code it does not know to CAIRN_DAEMON keeping the daemon's message", async () => {
    answer = json(404, { code: 'CAIRN_NOT_FOUND', message: 'no agent "x" in this project', hint: 'list agents with `cairn ls`' });
    await expect(client.agent('x')).rejects.toMatchObject({
      name: 'CairnError',
      code: 'CAIRN_NOT_FOUND',
      message: 'no agent "x" in this project',
      hint: 'list agents with `cairn ls`',
    });
    answer = json(409, { code: 'CAIRN_FROM_THE_FUTURE', message: 'the agent is dreaming' });
    await expect(client.agent('x')).rejects.toMatchObject({
      code: 'CAIRN_DAEMON',
      message: 'the agent is dreaming',
      hint: expect.stringContaining('CAIRN_FROM_THE_FUTURE'),
    });
    answer = json(500, { code: 'CAIRN_FROM_THE_FUTURE', message: 'kept', hint: 'the daemon hint' });
    await expect(client.agent('x')).rejects.toMatchObject({ code: 'CAIRN_DAEMON', message: 'kept', hint: 'the daemon hint' });
    answer = { status: 502, body: '<html>bad gateway</html>' };
    await expect(client.agent('x')).rejects.toMatchObject({
      code: 'CAIRN_DAEMON',
      message: expect.stringMatching(/^the daemon answered GET \/agents\/:id with 502 and no error it can read: not JSON/),
    });
    answer = json(400, { code: 42, message: 'a number for a code' });
    await expect(client.agent('x')).rejects.toMatchObject({ code: 'CAIRN_DAEMON', message: expect.stringContaining('with 400') });
  });
});

describe("the client's event stream", () => {
  it('parses every line: a line that is not an event ends the stream with CAIRN_DAEMON, without a crash', async () => {
    answer = { stream: [HELLO, JSON.stringify(EVENT), JSON.stringify({ type: 'agent.dreamt', time: 'now' }), JSON.stringify(EVENT)] };
    const stream = await client.subscribe({ agentId: 'a1b2' });
    expect(seen.map((s) => s.url)).toEqual(['/events?agent=a1b2']);
    expect(await stream.next()).toEqual({ value: EVENT, done: false });
    await expect(stream.next()).rejects.toMatchObject({
      code: 'CAIRN_DAEMON',
      message: expect.stringMatching(/^the daemon sent an event this client cannot read: /),
    });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('a line that is not JSON ends it the same way', async () => {
    answer = { stream: [HELLO, '{"type": "agent.rejected", '] };
    const stream = await client.subscribe();
    await expect(stream.next()).rejects.toMatchObject({ code: 'CAIRN_DAEMON', message: expect.stringContaining('not JSON') });
    expect((await stream.next()).done).toBe(true);
  });

  it('ends after the event `until` matches, and when the daemon closes the stream', async () => {
    const other: CairnEvent = { type: 'agent.restored', time: EVENT.time, agentId: 'a1b2' };
    answer = { stream: [HELLO, JSON.stringify(other), JSON.stringify(EVENT), JSON.stringify(other)] };
    const stream = await client.subscribe({ until: (e) => e.type === 'agent.rejected' });
    const events: CairnEvent[] = [];
    for (let next = await stream.next(); next.done !== true; next = await stream.next()) events.push(next.value);
    expect(events.map((e) => e.type)).toEqual(['agent.restored', 'agent.rejected']);
    answer = { stream: [HELLO, JSON.stringify(EVENT)] };
    const events2: CairnEvent[] = [];
    for await (const event of client.events()) events2.push(event);
    expect(events2).toEqual([EVENT]);
  });

  it('refuses a stream that does not begin with hello, and an error answer, with what the daemon said', async () => {
    answer = { stream: [JSON.stringify(EVENT)] };
    await expect(client.subscribe()).rejects.toMatchObject({
      code: 'CAIRN_DAEMON',
      message: expect.stringContaining('did not begin with hello'),
    });
    answer = { stream: [] };
    await expect(client.subscribe()).rejects.toMatchObject({ code: 'CAIRN_DAEMON', message: expect.stringContaining('before it began') });
    answer = json(503, { code: 'CAIRN_CLOSED', message: 'the project is closed' });
    await expect(client.subscribe()).rejects.toMatchObject({ code: 'CAIRN_CLOSED', message: 'the project is closed' });
  });
});

describe('a client without a daemon', () => {
  it('says the daemon did not answer, and once closed says so', async () => {
    const lost = new DaemonClient('/the/project', join(dir, 'nobody.sock'));
    await expect(lost.agents()).rejects.toMatchObject({
      code: 'CAIRN_DAEMON',
      message: expect.stringContaining(`the daemon at ${join(dir, 'nobody.sock')} did not answer`),
      hint: expect.stringContaining('see where things stand with `cairn ls`'),
    });
    await expect(lost.subscribe()).rejects.toMatchObject({ code: 'CAIRN_DAEMON' });
    await lost.close();
    await expect(lost.agents()).rejects.toMatchObject({ code: 'CAIRN_CLOSED', message: 'the client is closed' });
  });
});

describe('a daemon that drops a request', () => {
  /** A daemon on its own socket that drops every connection it is sent a request on, and closes its socket with `leave`. */
  async function dropping(leave: boolean): Promise<{ client: DaemonClient; close: () => Promise<void> }> {
    const socketPath = join(dir, leave ? 'leaving.sock' : 'dropping.sock');
    const dropper = createServer((req) => {
      if (leave) dropper.close();
      req.socket.destroy();
    });
    await new Promise<void>((resolve) => dropper.listen(socketPath, resolve));
    const dropped = new DaemonClient('/the/project', socketPath);
    return {
      client: dropped,
      close: async () => {
        await dropped.close();
        if (dropper.listening) await new Promise((resolve) => dropper.close(resolve));
      },
    };
  }

  it('says to restart a daemon that still answers on its socket', async () => {
    const { client: dropped, close } = await dropping(false);
    try {
      const error = await dropped.agents().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'CAIRN_DAEMON', hint: 'restart it with `cairn down && cairn up`' });
      expect((error as Error).message).not.toContain('nothing answers');
    } finally {
      await close();
    }
  });

  it('says a daemon that is gone is gone, and how to go on without it', async () => {
    const { client: dropped, close } = await dropping(true);
    try {
      await expect(dropped.agents()).rejects.toMatchObject({
        code: 'CAIRN_DAEMON',
        message: expect.stringMatching(/did not answer: .*; nothing answers there now \(the daemon was stopped, killed or crashed\)$/),
        hint: expect.stringContaining('`cairn up` starts a new daemon'),
      });
    } finally {
      await close();
    }
  });
});

describe('a daemon that is slow, or does not answer', () => {
  /** A daemon on its own socket: `/health` answers as `health` says, `/agents` after `agentsMs` (never when undefined). */
  async function slow(name: string, health: boolean, agentsMs: number | undefined) {
    const socketPath = join(dir, `${name}.sock`);
    const daemon = createServer((req, res) => {
      if (req.url === '/health' && !health) return;
      if (req.url === '/health') return void res.end(JSON.stringify({ ok: true }));
      if (agentsMs !== undefined) setTimeout(() => res.end(JSON.stringify([AGENT])), agentsMs);
    });
    await new Promise<void>((resolve) => daemon.listen(socketPath, resolve));
    const slowClient = new DaemonClient('/the/project', socketPath, { timeoutMs: 300 });
    return {
      client: slowClient,
      close: async () => {
        await slowClient.close();
        daemon.closeAllConnections();
        await new Promise((resolve) => daemon.close(resolve));
      },
    };
  }

  it('a request longer than any bound is waited for while a second request is answered', async () => {
    const { client: patient, close } = await slow('patient', true, 2500);
    try {
      expect((await patient.agents()).map((a) => a.id)).toEqual(['a1b2']);
    } finally {
      await close();
    }
  });

  it('a daemon whose socket takes connections but answers nothing is given up on, with CAIRN_DAEMON', async () => {
    const { client: frozen, close } = await slow('frozen', false, undefined);
    try {
      const started = Date.now();
      await expect(frozen.agents()).rejects.toMatchObject({
        code: 'CAIRN_DAEMON',
        message: expect.stringMatching(/does not answer: a request waited [\d.]+ s, and a second request got no answer in 0.3 s$/),
        hint: expect.stringContaining('CAIRN_DAEMON_TIMEOUT_MS'),
      });
      expect(Date.now() - started).toBeLessThan(30_000);
      const stream = await frozen.subscribe().catch((e: unknown) => e);
      expect(stream).toMatchObject({ code: 'CAIRN_DAEMON' });
    } finally {
      await close();
    }
  });
});
