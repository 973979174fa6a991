import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadQueueSettings } from './queue-settings.js';
import { parseAddress, serveWorkers, uploadPaths, type WorkerEndpoint } from './worker-endpoint.js';

describe("the coordinator's endpoint for workers", () => {
  let dir: string;
  let endpoint: WorkerEndpoint;
  const snapshot = Buffer.from('a snapshot of stable.db');
  const hash = createHash('sha256').update(snapshot).digest('hex');
  const auth = { authorization: 'Bearer s3cret' };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-endpoint-'));
    writeFileSync(join(dir, `${hash}.db`), snapshot);
    endpoint = await serveWorkers('127.0.0.1:0', 's3cret', {
      info: { queue: 'cairn-test', key: 'ed25519:00' },
      untrusted: (worker) => (worker === 'rogue' ? 'job x-1: its signature does not verify' : undefined),
      admitUpload: async (jobId, _run, claims, body) => {
        if (jobId === 'ef56-1') return { ok: false, status: 409, message: `job ${jobId} is no longer its agent's` };
        if (claims.worker !== 'forger') return { ok: true };
        mkdirSync(join(dir, 'evidence'), { recursive: true });
        renameSync(body, join(dir, 'evidence', 'forged.db'));
        return { ok: false, status: 403, refused: "the upload's signature does not verify with worker forger's enrolled key" };
      },
      snapshotPath: (h) => (h === hash ? join(dir, `${hash}.db`) : undefined),
      uploadsDir: join(dir, 'uploads'),
    });
  });

  afterAll(async () => {
    await endpoint.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** PUTs `body` as the first attempt of `jobId` from `worker`, with its true sha256. */
  const putUpload = (jobId: string, worker: string, body: Buffer) =>
    fetch(`${endpoint.url}/uploads/${jobId}/1`, {
      method: 'PUT',
      headers: {
        ...auth,
        'x-cairn-worker': worker,
        'x-cairn-sha256': createHash('sha256').update(body).digest('hex'),
        'x-cairn-journal-head': `sha256:${'1'.repeat(64)} 7`,
        'x-cairn-signature': 'ab',
      },
      body,
    });

  it('answers only requests with its bearer token', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 's3cret' }]) {
      const response = await fetch(`${endpoint.url}/info`, { headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'CAIRN_REMOTE' });
    }
    expect(await (await fetch(`${endpoint.url}/info`, { headers: auth })).json()).toEqual({ queue: 'cairn-test', key: 'ed25519:00' });
  });

  it('tells a worker it does not trust so, and refuses its uploads, keeping nothing', async () => {
    const info = (worker: string) => fetch(`${endpoint.url}/info?worker=${worker}`, { headers: auth }).then((r) => r.json());
    expect(await info('w1')).toEqual({ queue: 'cairn-test', key: 'ed25519:00' });
    expect(await info('rogue')).toEqual({ queue: 'cairn-test', key: 'ed25519:00', untrusted: 'job x-1: its signature does not verify' });
    const refused = await putUpload('cd34-1', 'rogue', Buffer.from('a database from an untrusted worker'));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      code: 'CAIRN_REMOTE',
      message: 'worker rogue is untrusted (job x-1: its signature does not verify)',
      untrusted: 'job x-1: its signature does not verify',
    });
    const paths = uploadPaths(join(dir, 'uploads'), 'cd34-1', 1);
    expect([existsSync(paths.db), existsSync(paths.claims)]).toEqual([false, false]);
  });

  it("refuses, keeping nothing, an upload for a job that is no longer its agent's", async () => {
    const late = await putUpload('ef56-1', 'w1', Buffer.from('a result that came too late'));
    expect(late.status).toBe(409);
    expect(((await late.json()) as { message: string }).message).toMatch(/job ef56-1 is no longer its agent's/);
    expect(existsSync(uploadPaths(join(dir, 'uploads'), 'ef56-1', 1).claims)).toBe(false);
  });

  it('refuses an upload the coordinator does not admit, which keeps it as evidence; it takes no slot', async () => {
    const forged = await putUpload('ab99-1', 'forger', Buffer.from('a forged database'));
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({
      code: 'CAIRN_REMOTE',
      message: "the upload was refused (the upload's signature does not verify with worker forger's enrolled key); it is kept as evidence",
      refused: "the upload's signature does not verify with worker forger's enrolled key",
    });
    expect(readFileSync(join(dir, 'evidence', 'forged.db'), 'utf8')).toBe('a forged database');
    expect(existsSync(uploadPaths(join(dir, 'uploads'), 'ab99-1', 1).claims)).toBe(false);
    const honest = await putUpload('ab99-1', 'w1', Buffer.from('the honest database'));
    expect(honest.status).toBe(200);
  });

  it('serves a snapshot by its hash, and nothing else', async () => {
    const response = await fetch(`${endpoint.url}/snapshots/${hash}`, { headers: auth });
    expect(Buffer.from(await response.arrayBuffer())).toEqual(snapshot);
    expect((await fetch(`${endpoint.url}/snapshots/${'0'.repeat(64)}`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${endpoint.url}/snapshots/../../etc/passwd`, { headers: auth })).status).toBe(404);
  });

  it('keeps an upload only when its bytes hash to the sha256 it declares', async () => {
    const body = Buffer.from('an agent database');
    const headers = (sha256: string) => ({
      ...auth,
      'x-cairn-worker': 'w1',
      'x-cairn-sha256': sha256,
      'x-cairn-journal-head': `sha256:${'1'.repeat(64)} 7`,
      'x-cairn-signature': 'ab',
    });
    const bad = await fetch(`${endpoint.url}/uploads/ab12-1/1`, { method: 'PUT', headers: headers('2'.repeat(64)), body });
    expect(bad.status).toBe(422);
    expect(existsSync(uploadPaths(join(dir, 'uploads'), 'ab12-1', 1).db)).toBe(false);
    const sha256 = createHash('sha256').update(body).digest('hex');
    const good = await fetch(`${endpoint.url}/uploads/ab12-1/1`, { method: 'PUT', headers: headers(sha256), body });
    expect(good.status).toBe(200);
    const kept = uploadPaths(join(dir, 'uploads'), 'ab12-1', 1);
    expect(readFileSync(kept.db)).toEqual(body);
    expect(JSON.parse(readFileSync(kept.claims, 'utf8'))).toMatchObject({ worker: 'w1', sha256, head: { length: 7 } });
    // the first upload of an attempt stands: the same bytes again are taken, other bytes refused
    expect((await fetch(`${endpoint.url}/uploads/ab12-1/1`, { method: 'PUT', headers: headers(sha256), body })).status).toBe(200);
    const other = Buffer.from('another database');
    const otherSha = createHash('sha256').update(other).digest('hex');
    const late = await fetch(`${endpoint.url}/uploads/ab12-1/1`, { method: 'PUT', headers: headers(otherSha), body: other });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: 'CAIRN_INVALID_STATE', message: expect.stringMatching(/the first one stands/) });
    expect(readFileSync(kept.db)).toEqual(body);
    const unnamed = await fetch(`${endpoint.url}/uploads/ab12-1/2`, {
      method: 'PUT',
      headers: { ...headers(sha256), 'x-cairn-worker': '' },
      body,
    });
    expect(unnamed.status).toBe(400);
  });

  it('reads HOST:PORT, and refuses anything else with how to write it', () => {
    expect(parseAddress('0.0.0.0:7420')).toEqual({ host: '0.0.0.0', port: 7420 });
    expect(parseAddress(':7420')).toEqual({ host: '127.0.0.1', port: 7420 });
    expect(parseAddress('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(() => parseAddress('7420')).toThrow(/--serve-workers takes HOST:PORT/);
    expect(() => parseAddress('host:99999')).toThrow(/HOST:PORT/);
  });

  it('reads queue settings from .cairn/config.json and refuses a wrong type', () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ queue: 'redis://127.0.0.1:6379', serveWorkers: '0.0.0.0:7420', model: {} }));
    expect(loadQueueSettings(config)).toEqual({ queue: 'redis://127.0.0.1:6379', serveWorkers: '0.0.0.0:7420' });
    writeFileSync(config, JSON.stringify({ queue: 6379 }));
    expect(() => loadQueueSettings(config)).toThrow(/queue must be a string/);
    writeFileSync(config, JSON.stringify({ workerWaitMs: 30_000, withoutWorkers: 'run-here' }));
    expect(loadQueueSettings(config)).toEqual({ workerWaitMs: 30_000, withoutWorkers: 'run-here' });
    writeFileSync(config, JSON.stringify({ workerWaitMs: '30s' }));
    expect(() => loadQueueSettings(config)).toThrow(/workerWaitMs must be a whole number of milliseconds from 1000 to 86400000/);
    writeFileSync(config, JSON.stringify({ withoutWorkers: 'local' }));
    expect(() => loadQueueSettings(config)).toThrow(/withoutWorkers must be "wait" or "run-here" \(got "local"\)/);
    expect(loadQueueSettings(join(dir, 'none.json'))).toEqual({});
  });
});
