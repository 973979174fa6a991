import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadResult } from './result-upload.js';
import { serveWorkers, type WorkerEndpoint } from './worker-endpoint.js';
import {
  type CoordinatorLink,
  decodeClaims,
  encodeClaims,
  matchWorkerRoute,
  readErrorAnswer,
  readWorkerAnswer,
  type UploadClaims,
  uploadRequest,
  WORKER_WIRE,
  type WorkerRequest,
  workerRequest,
} from './worker-wire.js';

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe("the wire between a worker and the coordinator's endpoint", () => {
  let dir: string;
  let endpoint: WorkerEndpoint;
  let link: CoordinatorLink;
  const admitted: UploadClaims[] = [];
  const snapshot = Buffer.from('a snapshot of stable.db');
  const database = Buffer.from('an agent database');
  const claims: UploadClaims = {
    worker: 'w1',
    sha256: sha256Of(database),
    head: { hash: `sha256:${'1'.repeat(64)}`, length: 7 },
    signature: 'ab',
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-wire-'));
    writeFileSync(join(dir, 'snapshot.db'), snapshot);
    endpoint = await serveWorkers('127.0.0.1:0', 's3cret', {
      info: { queue: 'cairn-test', key: 'ed25519:00' },
      untrusted: () => undefined,
      admitUpload: async (_jobId, _run, given) => {
        admitted.push(given);
        return { ok: true };
      },
      snapshotPath: (hash) => (hash === sha256Of(snapshot) ? join(dir, 'snapshot.db') : undefined),
      uploadsDir: join(dir, 'uploads'),
    });
    link = { url: endpoint.url, bearer: 's3cret' };
  });

  afterAll(async () => {
    await endpoint.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves every route of the table a request its client builds, and the client reads each answer', async () => {
    const requests: Record<keyof typeof WORKER_WIRE, WorkerRequest> = {
      info: workerRequest(link, WORKER_WIRE.info, ['w1']),
      snapshot: workerRequest(link, WORKER_WIRE.snapshot, [sha256Of(snapshot)]),
      upload: uploadRequest(link, 'ab12-1', 1, claims, database),
    };
    expect(Object.keys(requests).sort()).toEqual(Object.keys(WORKER_WIRE).sort());
    const answers = Object.fromEntries(
      await Promise.all(
        Object.entries(requests).map(async ([name, request]) => {
          const response = await fetch(request.url, request.init);
          return [name, { status: response.status, type: response.headers.get('content-type'), body: await response.text() }] as const;
        }),
      ),
    );
    expect(Object.values(answers).map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(readWorkerAnswer(WORKER_WIRE.info, answers.info!.body, link.url)).toEqual({ queue: 'cairn-test', key: 'ed25519:00' });
    expect(answers.snapshot).toMatchObject({ type: 'application/octet-stream', body: snapshot.toString() });
    expect(readWorkerAnswer(WORKER_WIRE.upload, answers.upload!.body, link.url)).toEqual({ ok: true, sha256: claims.sha256 });
    expect(admitted).toEqual([claims]);
  });

  it('matches each path its builders make, with the parameters back, and no other method or path', () => {
    const match = (method: string, path: string) => matchWorkerRoute(method, new URL(path, 'http://cairn'));
    const hash = 'f'.repeat(64);
    expect(match('GET', WORKER_WIRE.info.path('w 1'))).toEqual({ route: 'info', params: { worker: 'w 1' } });
    expect(match('GET', WORKER_WIRE.info.path())).toEqual({ route: 'info', params: { worker: undefined } });
    expect(match('GET', WORKER_WIRE.snapshot.path(hash))).toEqual({ route: 'snapshot', params: { hash } });
    expect(match('PUT', WORKER_WIRE.upload.path('ab12-1', 3))).toEqual({ route: 'upload', params: { jobId: 'ab12-1', run: 3 } });
    expect(match('PUT', WORKER_WIRE.info.path())).toBeUndefined();
    expect(match('GET', WORKER_WIRE.upload.path('ab12-1', 3))).toBeUndefined();
    expect(match('GET', '/snapshots/../../etc/passwd')).toBeUndefined();
    expect(match('PUT', WORKER_WIRE.upload.path('ab12-1', 0))).toBeUndefined();
  });

  it("carries an upload's claims in headers and reads them back; each malformed claim is refused with its own message", async () => {
    for (const head of [claims.head, { hash: 'a'.repeat(64), length: 0 }])
      expect(decodeClaims(encodeClaims({ ...claims, head }))).toEqual({ ...claims, head });
    const headers = encodeClaims(claims);
    const broken: [string, string | undefined, string][] = [
      ['x-cairn-worker', 'two words', 'x-cairn-worker must name the worker'],
      ['x-cairn-sha256', undefined, 'x-cairn-sha256 must be the upload sha256 in hex'],
      ['x-cairn-journal-head', `${'1'.repeat(64)}`, 'x-cairn-journal-head must be "<hash> <length>"'],
      ['x-cairn-signature', undefined, 'x-cairn-signature is missing'],
    ];
    for (const [name, value, message] of broken) {
      const given = { ...headers, [name]: value };
      expect(decodeClaims(given)).toBe(message);
      // the endpoint answers the same, before it reads a byte of the upload
      const request = workerRequest(link, WORKER_WIRE.upload, ['cd34-1', 1], {
        headers: Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== undefined)),
        body: database,
      });
      const response = await fetch(request.url, request.init);
      expect(response.status).toBe(400);
      expect(readErrorAnswer(await response.text())).toEqual({ code: 'CAIRN_INVALID_ARGUMENT', message });
    }
    // the first claim that does not read is the one named
    expect(decodeClaims({})).toBe('x-cairn-worker must name the worker');
  });

  it('reads the error answers of the endpoint, and nothing else as one', async () => {
    const request = workerRequest({ url: endpoint.url, bearer: 'wrong' }, WORKER_WIRE.info, ['w1']);
    const refused = await fetch(request.url, request.init);
    expect(refused.status).toBe(401);
    expect(readErrorAnswer(await refused.text())).toEqual({
      code: 'CAIRN_REMOTE',
      message: 'a bearer token this coordinator issued is needed',
    });
    expect(readErrorAnswer('<html>bad gateway</html>')).toBeUndefined();
    expect(readErrorAnswer('{"message":"no code"}')).toBeUndefined();
  });

  describe('a coordinator whose answers a worker cannot read', () => {
    let odd: Server;
    let oddLink: CoordinatorLink;

    beforeAll(async () => {
      // answers every route 200, with what no route of the table answers
      odd = createServer((request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(request.url?.startsWith('/info') ? '{"queue":5,"key":"ed25519:00"}' : '{"ok":"yes"}');
      });
      await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
      oddLink = { url: `http://127.0.0.1:${(odd.address() as AddressInfo).port}`, bearer: 's3cret' };
    });

    afterAll(() => new Promise<void>((resolve) => odd.close(() => resolve())));

    it('is a CAIRN_REMOTE error that says which answer and what in it, not a crash', async () => {
      const request = workerRequest(oddLink, WORKER_WIRE.info, ['w1']);
      const text = await (await fetch(request.url, request.init)).text();
      expect(() => readWorkerAnswer(WORKER_WIRE.info, text, oddLink.url)).toThrow(
        expect.objectContaining({
          code: 'CAIRN_REMOTE',
          message: expect.stringMatching(/^the coordinator at http:\/\/127\.0\.0\.1:\d+ answered GET \/info.* cannot read: .*queue/),
          hint: expect.stringMatching(/same version/),
        }),
      );
      expect(() => readWorkerAnswer(WORKER_WIRE.info, 'Service Unavailable', oddLink.url)).toThrow(
        /cannot read: not JSON: "Service Unavailable"/,
      );
      const upload = uploadResult(oddLink, 'ab12-1', 1, claims, database, {
        deadline: Date.now() + 60_000,
        signal: new AbortController().signal,
        clock: Date.now,
      });
      await expect(upload).rejects.toMatchObject({
        code: 'CAIRN_REMOTE',
        message: expect.stringMatching(/answered PUT \/uploads\/<job>\/<run> with what this worker cannot read: .*ok/),
      });
    });
  });
});
