import type { AgentInfo, CairnApi, SpawnOptions } from '@cairn/api';
import { CairnError } from '@cairn/api';
import type * as v from 'valibot';
import type { WireInput } from './wire-inputs.js';
import type { DaemonHealth, DaemonIdentity } from './wire-schemas.js';

/** The largest request body a route reads: 1 MB, or 8 MB where it may carry a program (spawn, review). */
export const MAX_BODY = 1 << 20;
/** The body limit of routes that may carry a program. */
export const MAX_PROGRAM_BODY = 8 << 20;

/** What a client sends for one call: the path's `:name` parameters, the query, the JSON body of a POST. */
export interface WireRequest {
  params?: Record<string, string>;
  query?: Record<string, string | readonly string[] | undefined>;
  body?: object;
}

/** What the daemon's side of a route calls: the project's API and the daemon's own parts. */
export interface WireTarget {
  api: CairnApi;
  identity: DaemonIdentity;
  shutdown(): void;
}

/**
 * One route of the daemon, both ends of it: the client turns a method's arguments into a request (`request`)
 * and parses the answer (`response`); the daemon turns a request back into the arguments, checking every part
 * (`args`), and calls the API (`serve`). A successful answer's JSON body is exactly what `serve` returned.
 */
export interface WireRoute<A extends readonly unknown[], R> {
  readonly method: 'GET' | 'POST';
  /** With `:name` parameters, as Hono reads them. */
  readonly path: string;
  readonly status: 200 | 201;
  readonly maxBody: number;
  request(...args: A): WireRequest;
  args(input: WireInput): A;
  serve(target: WireTarget, ...args: A): Promise<R> | R;
  readonly response: v.GenericSchema<unknown, R>;
  /** `serve` over `args`: what the daemon answers a request with. */
  answer(target: WireTarget, input: WireInput): Promise<R>;
}

/** Methods of `CairnApi` that are one request and one answer, each under its own name. */
type CallMethod = Exclude<keyof CairnApi, 'root' | 'close' | 'events' | 'subscribe' | 'spawn' | 'queue'>;

type RouteOf<K extends CallMethod> = CairnApi[K] extends (...args: infer A) => Promise<infer R> ? WireRoute<A, R> : never;

/** Every route of the daemon but the event stream: one per API method (spawn and queue share `createAgent`), and the daemon's own two. */
export type WireTable = { readonly [K in CallMethod]: RouteOf<K> } & {
  readonly createAgent: WireRoute<[task: string, options: SpawnOptions | undefined, mode: 'spawn' | 'queue'], AgentInfo>;
  readonly health: WireRoute<[], DaemonHealth>;
  readonly shutdown: WireRoute<[], { ok: boolean }>;
};

/** A route as the table writes it: status 200 and the 1 MB body limit unless it says otherwise. */
export type RouteSpec<A extends readonly unknown[], R> = Omit<WireRoute<A, R>, 'status' | 'maxBody' | 'answer'> &
  Partial<Pick<WireRoute<A, R>, 'status' | 'maxBody'>>;

/** A route of the table, with `answer` made from its `args` and `serve`. */
export function route<A extends readonly unknown[], R>(spec: RouteSpec<A, R>): WireRoute<A, R> {
  return { status: 200, maxBody: MAX_BODY, ...spec, answer: async (target, input) => spec.serve(target, ...spec.args(input)) };
}

/** The path and query a request goes to: `:name` parameters filled in (each required) and the query encoded. */
export function requestTarget(path: string, request: WireRequest): string {
  const filled = path.replace(/:(\w+)/g, (_, name: string) => {
    const value = request.params?.[name];
    if (value === undefined || value === '')
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `${name === 'id' ? 'an agent id' : `"${name}"`} is required`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {}))
    for (const item of value === undefined ? [] : typeof value === 'string' ? [value] : value) query.append(name, item);
  const search = query.toString();
  return search === '' ? filled : `${filled}?${search}`;
}
