import { CairnError, oneLine } from '@cairn/api';
import * as v from 'valibot';
import { claimHeadersSchema, type ErrorAnswer, errorAnswerSchema, infoAnswerSchema, uploadAnswerSchema } from './worker-wire-schemas.js';

export type { ErrorAnswer, InfoAnswer, UploadAnswer } from './worker-wire-schemas.js';

/**
 * What a worker declares with an upload: the coordinator checks the worker's signature as it arrives, and
 * every claim again when it verifies the result.
 */
export interface UploadClaims {
  worker: string;
  sha256: string;
  head: { hash: string; length: number };
  signature: string;
}

/** Where a worker finds its coordinator's endpoint, and the bearer token the coordinator gave out. */
export interface CoordinatorLink {
  url: string;
  bearer: string;
}

/** The type of a body of bytes: a snapshot served, an upload sent. */
export const BYTES_TYPE = 'application/octet-stream';

/**
 * One route of the coordinator's endpoint for workers, both ends of it: a worker builds its path from the
 * arguments (`path`) and reads the answer (`response`); the endpoint matches the path (`pattern`) and reads the
 * parameters back (`params`).
 */
export interface WorkerRoute<A extends readonly unknown[], P, S extends AnswerSchema> {
  readonly method: 'GET' | 'PUT';
  /** The path as people write it, for messages. */
  readonly template: string;
  /** The whole path of a request (the query aside): its groups are the route's parameters. */
  readonly pattern: RegExp;
  /** The path and query a worker requests. */
  path(...args: A): string;
  /** The parameters of a request whose path `pattern` matched. */
  params(match: RegExpExecArray, query: URLSearchParams): P;
  /** A successful answer: JSON of this schema, or `bytes` (`BYTES_TYPE`). */
  readonly response: S;
}

/** What a route's successful answer is: JSON of a schema, or bytes. */
export type AnswerSchema = v.GenericSchema | 'bytes';

/** What a route with a JSON answer answers. */
export type AnswerOf<S extends v.GenericSchema> = v.InferOutput<S>;

function workerRoute<A extends readonly unknown[], P, S extends AnswerSchema>(route: WorkerRoute<A, P, S>): WorkerRoute<A, P, S> {
  return route;
}

/** The header each claim of an upload travels in. */
const CLAIM_HEADERS = {
  worker: 'x-cairn-worker',
  sha256: 'x-cairn-sha256',
  head: 'x-cairn-journal-head',
  signature: 'x-cairn-signature',
} as const;

/** An upload's claims as its request's headers. */
export function encodeClaims(claims: UploadClaims): Record<string, string> {
  return {
    [CLAIM_HEADERS.worker]: claims.worker,
    [CLAIM_HEADERS.sha256]: claims.sha256,
    [CLAIM_HEADERS.head]: `${claims.head.hash} ${claims.head.length}`,
    [CLAIM_HEADERS.signature]: claims.signature,
  };
}

/** An upload's claims read from its request's headers, or why they do not read (the first claim that does not). */
export function decodeClaims(headers: Readonly<Record<string, string | readonly string[] | undefined>>): UploadClaims | string {
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const parsed = v.safeParse(
    claimHeadersSchema,
    {
      worker: header(CLAIM_HEADERS.worker),
      sha256: header(CLAIM_HEADERS.sha256),
      head: header(CLAIM_HEADERS.head),
      signature: header(CLAIM_HEADERS.signature),
    },
    { abortEarly: true },
  );
  return parsed.success ? parsed.output : parsed.issues[0].message;
}

/** The endpoint's routes: the one place each one's method, path, encoding and answer are written. */
export const WORKER_WIRE = {
  /** The queue and the coordinator's public key (and, for a worker it does not trust, why). */
  info: workerRoute({
    method: 'GET',
    template: '/info[?worker=NAME]',
    pattern: /^\/info$/,
    path: (worker?: string) => (worker === undefined ? '/info' : `/info?worker=${encodeURIComponent(worker)}`),
    params: (_, query) => ({ worker: query.get('worker') ?? undefined }),
    response: infoAnswerSchema,
  }),
  /** A snapshot's bytes, by their sha256. */
  snapshot: workerRoute({
    method: 'GET',
    template: '/snapshots/<sha256>',
    pattern: /^\/snapshots\/([0-9a-f]{64})$/,
    path: (hash: string) => `/snapshots/${hash}`,
    params: (match) => ({ hash: match[1]! }),
    response: 'bytes',
  }),
  /** The database of a job's run, its claims in the headers (`encodeClaims`). */
  upload: workerRoute({
    method: 'PUT',
    template: '/uploads/<job>/<run>',
    pattern: /^\/uploads\/([0-9a-z-]{1,80})\/([1-9][0-9]{0,5})$/,
    path: (jobId: string, run: number) => `/uploads/${jobId}/${run}`,
    params: (match) => ({ jobId: match[1]!, run: Number(match[2]) }),
    response: uploadAnswerSchema,
  }),
};

type WorkerWire = typeof WORKER_WIRE;

/** A request the endpoint serves: the route it matched, and that route's parameters. */
export type MatchedRoute = { [K in keyof WorkerWire]: { route: K; params: ReturnType<WorkerWire[K]['params']> } }[keyof WorkerWire];

/** The route of the table a request is for, with its parameters; `undefined` when none is. */
export function matchWorkerRoute(method: string | undefined, url: URL): MatchedRoute | undefined {
  for (const name of Object.keys(WORKER_WIRE) as (keyof WorkerWire)[]) {
    const route: WorkerRoute<never, unknown, AnswerSchema> = WORKER_WIRE[name];
    const match = route.method === method ? route.pattern.exec(url.pathname) : null;
    if (match !== null) return { route: name, params: route.params(match, url.searchParams) } as MatchedRoute;
  }
  return undefined;
}

/** The `authorization` header of every request to the endpoint. */
export function bearerAuthorization(bearer: string): string {
  return `Bearer ${bearer}`;
}

/** A request a worker sends: where to, and how. */
export interface WorkerRequest {
  url: string;
  init: RequestInit;
}

/** The request for `route` with `args`, to the coordinator at `link`, with its bearer and any other headers and body. */
export function workerRequest<A extends readonly unknown[]>(
  link: CoordinatorLink,
  route: Pick<WorkerRoute<A, unknown, AnswerSchema>, 'method' | 'path'>,
  args: A,
  send: { headers?: Record<string, string>; body?: Uint8Array } = {},
): WorkerRequest {
  return {
    url: `${link.url}${route.path(...args)}`,
    init: {
      method: route.method,
      headers: { authorization: bearerAuthorization(link.bearer), ...send.headers },
      ...(send.body === undefined ? {} : { body: send.body }),
    },
  };
}

/** The upload of `body`, the database of job `jobId`'s run `run`, with its claims. */
export function uploadRequest(link: CoordinatorLink, jobId: string, run: number, claims: UploadClaims, body: Uint8Array): WorkerRequest {
  return workerRequest(link, WORKER_WIRE.upload, [jobId, run], { headers: { 'content-type': BYTES_TYPE, ...encodeClaims(claims) }, body });
}

/**
 * A successful answer of `route` from the coordinator at `coordinator`, read by the route's schema:
 * `CAIRN_REMOTE` saying what came when it does not read.
 */
export function readWorkerAnswer<S extends v.GenericSchema>(
  route: Pick<WorkerRoute<never, unknown, S>, 'method' | 'template' | 'response'>,
  text: string,
  coordinator: string,
): AnswerOf<S> {
  const parsed = parseJsonAs(route.response, text);
  if (parsed.ok) return parsed.value;
  throw new CairnError(
    'CAIRN_REMOTE',
    `the coordinator at ${coordinator} answered ${route.method} ${route.template} with what this worker cannot read: ${parsed.problem}`,
    { hint: 'is the coordinator the same version of Cairn as this worker?' },
  );
}

/** What an answer that is not ok says, when it is an error answer this worker can read. */
export function readErrorAnswer(text: string): ErrorAnswer | undefined {
  const parsed = parseJsonAs(errorAnswerSchema, text);
  return parsed.ok ? parsed.value : undefined;
}

function parseJsonAs<S extends v.GenericSchema>(
  schema: S,
  text: string,
): { ok: true; value: AnswerOf<S> } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const line = oneLine(text);
    return {
      ok: false,
      problem: `not JSON: ${line === '' ? '(nothing)' : JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line)}`,
    };
  }
  const parsed = v.safeParse(schema, json);
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, problem: oneLine(v.summarize(parsed.issues)) };
}
