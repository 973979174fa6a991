import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CairnError } from '@cairn/api';
import type { CoordinatorInfo } from './remote-job.js';
import {
  type AnswerOf,
  BYTES_TYPE,
  bearerAuthorization,
  decodeClaims,
  type ErrorAnswer,
  type InfoAnswer,
  matchWorkerRoute,
  type UploadAnswer,
  type UploadClaims,
  WORKER_WIRE,
  type WorkerRoute,
} from './worker-wire.js';

export type { UploadClaims } from './worker-wire.js';

/** The largest upload a worker may send (an agent's database). */
const MAX_UPLOAD = 1024 * 1024 * 1024;

/**
 * Whether an upload is taken: yes; no, with an answer's status and why (409: nobody will read it; 503: ask
 * again later); or refused (403: not signed by the worker that took the run), its bytes kept as evidence.
 */
export type UploadAdmission =
  | { ok: true }
  | { ok: false; status: 409 | 503; message: string }
  | { ok: false; status: 403; refused: string };

/** Where the endpoint finds snapshots and puts uploads. */
export interface EndpointStores {
  info: CoordinatorInfo;
  /** Why the worker of this name is untrusted, if it is: its uploads are refused, and `/info` tells it. */
  untrusted(worker: string): string | undefined;
  /**
   * Whether the upload whose bytes are in the file `body` is taken; a refused one is moved away as evidence by
   * this call, any other that is not taken is dropped by the endpoint. `from` is the sender's address.
   */
  admitUpload(jobId: string, run: number, claims: UploadClaims, body: string, from?: string): Promise<UploadAdmission>;
  snapshotPath(hash: string): string | undefined;
  uploadsDir: string;
}

// The routes (`GET /info[?worker=NAME]`, `GET /snapshots/<sha256>`, `PUT /uploads/<job>/<run>`) are those of
// `WORKER_WIRE`: matched, their claims read and their answers typed through it.

/** The coordinator's HTTP endpoint for workers, listening. */
export interface WorkerEndpoint {
  url: string;
  close(): Promise<void>;
}

/** The sha256 of the upload a job's attempt already has (its claims are written first), if any. */
function keptSha256(claimsPath: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(claimsPath, 'utf8')) as UploadClaims).sha256;
  } catch {
    return undefined;
  }
}

/** The file an upload of a job's attempt is kept in, and its claims beside it. */
export function uploadPaths(uploadsDir: string, jobId: string, attempt: number): { db: string; claims: string } {
  const base = join(uploadsDir, `${jobId}.${attempt}`);
  return { db: `${base}.db`, claims: `${base}.json` };
}

/**
 * Serves snapshots (`GET /snapshots/<sha256>`) and takes uploads (`PUT /uploads/<job>/<run>`) over HTTP, each
 * request with the workers' bearer token. An upload is kept only when its bytes hash to the sha256 it declares
 * and the coordinator admits it (the worker that took the run signed it); nothing it holds is trusted before
 * verification.
 */
export async function serveWorkers(address: string, bearer: string, stores: EndpointStores): Promise<WorkerEndpoint> {
  const { host, port } = parseAddress(address);
  const expected = createHash('sha256').update(bearerAuthorization(bearer)).digest();
  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: Error) => answer(response, 500, { code: 'CAIRN_INTERNAL', message: error.message }));
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const given = createHash('sha256')
      .update(request.headers.authorization ?? '')
      .digest();
    if (!timingSafeEqual(given, expected))
      return answer(response, 401, { code: 'CAIRN_REMOTE', message: 'a bearer token this coordinator issued is needed' });
    const url = new URL(request.url ?? '/', 'http://cairn');
    const matched = matchWorkerRoute(request.method, url);
    switch (matched?.route) {
      case 'info': {
        const { worker } = matched.params;
        const untrusted = worker === undefined ? undefined : stores.untrusted(worker);
        return answerWith(response, WORKER_WIRE.info, untrusted === undefined ? stores.info : { ...stores.info, untrusted });
      }
      case 'snapshot': {
        const { hash } = matched.params;
        const path = stores.snapshotPath(hash);
        if (path === undefined) return answer(response, 404, { code: 'CAIRN_NOT_FOUND', message: `no snapshot ${hash}` });
        response.writeHead(200, { 'content-type': BYTES_TYPE });
        await pipeline(createReadStream(path), response);
        return;
      }
      case 'upload':
        return receive(request, response, matched.params.jobId, matched.params.run);
      case undefined:
        return answer(response, 404, { code: 'CAIRN_NOT_FOUND', message: `no route ${request.method ?? ''} ${url.pathname}` });
    }
  }
  async function receive(request: IncomingMessage, response: ServerResponse, jobId: string, attempt: number): Promise<void> {
    const claims = decodeClaims(request.headers);
    if (typeof claims === 'string') return answer(response, 400, { code: 'CAIRN_INVALID_ARGUMENT', message: claims });
    mkdirSync(stores.uploadsDir, { recursive: true, mode: 0o700 });
    const paths = uploadPaths(stores.uploadsDir, jobId, attempt);
    const temp = `${paths.db}.${randomBytes(6).toString('hex')}.part`;
    const hash = createHash('sha256');
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      if (size > MAX_UPLOAD) request.destroy(new Error('the upload is too large'));
    });
    try {
      await pipeline(request, createWriteStream(temp, { mode: 0o600 }));
    } catch (error) {
      rmSync(temp, { force: true });
      return answer(response, 400, { code: 'CAIRN_REMOTE', message: `the upload broke off: ${(error as Error).message}` });
    }
    const got = hash.digest('hex');
    const untrusted = stores.untrusted(claims.worker);
    if (untrusted !== undefined) {
      rmSync(temp, { force: true });
      return answer(response, 403, { code: 'CAIRN_REMOTE', message: `worker ${claims.worker} is untrusted (${untrusted})`, untrusted });
    }
    if (got !== claims.sha256) {
      rmSync(temp, { force: true });
      return answer(response, 422, { code: 'CAIRN_CORRUPT', message: `the upload's sha256 is ${got}, not the declared ${claims.sha256}` });
    }
    let admission: UploadAdmission;
    try {
      admission = await stores.admitUpload(jobId, attempt, claims, temp, request.socket.remoteAddress);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    if (!admission.ok) {
      if (admission.status === 403)
        return answer(response, 403, {
          code: 'CAIRN_REMOTE',
          message: `the upload was refused (${admission.refused}); it is kept as evidence`,
          refused: admission.refused,
        });
      rmSync(temp, { force: true });
      return answer(response, admission.status, {
        code: admission.status === 409 ? 'CAIRN_INVALID_STATE' : 'CAIRN_REMOTE',
        message: admission.message,
      });
    }
    // the first upload of an attempt stands: the same bytes again (a retry) are taken as done, others refused
    const kept = keptSha256(paths.claims);
    if (kept === undefined) {
      writeFileSync(`${temp}.claims`, JSON.stringify(claims), { mode: 0o600 });
      try {
        linkSync(`${temp}.claims`, paths.claims);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      } finally {
        rmSync(`${temp}.claims`, { force: true });
      }
    }
    const first = kept ?? keptSha256(paths.claims);
    if (first !== got) {
      rmSync(temp, { force: true });
      return answer(response, 409, {
        code: 'CAIRN_INVALID_STATE',
        message: `job ${jobId} attempt ${attempt} already has an upload (sha256 ${first ?? '?'}); the first one stands`,
      });
    }
    if (kept === undefined) renameSync(temp, paths.db);
    else rmSync(temp, { force: true });
    answerWith(response, WORKER_WIRE.upload, { ok: true, sha256: got });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    url: `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A successful answer of `route`: its schema's type, so the endpoint cannot send what its workers do not read. */
function answerWith<S extends typeof WORKER_WIRE.info.response | typeof WORKER_WIRE.upload.response>(
  response: ServerResponse,
  _route: Pick<WorkerRoute<never, unknown, S>, 'response'>,
  body: AnswerOf<S>,
): void {
  answer(response, 200, body);
}

function answer(response: ServerResponse, status: number, body: ErrorAnswer | InfoAnswer | UploadAnswer): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** `HOST:PORT` (or `:PORT`, loopback) of `--serve-workers`. */
export function parseAddress(address: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address.trim());
  const port = Number(match?.[3]);
  if (match === null || port > 65535)
    throw new CairnError('CAIRN_INVALID_ARGUMENT', `--serve-workers takes HOST:PORT (got ${JSON.stringify(address)})`, {
      hint: 'e.g. 0.0.0.0:7420 for every interface, 127.0.0.1:7420 for this machine only',
    });
  return { host: match[1] ?? (match[2] === '' ? '127.0.0.1' : match[2]!), port };
}
