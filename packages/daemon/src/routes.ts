import type { CairnApi } from '@cairn/api';
import { CairnError, type CairnErrorCode, isCairnError } from '@cairn/api';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { stream } from 'hono/streaming';
import { EVENT_STREAM, WIRE, type WireTarget } from './wire.js';
import { parseBody, type WireInput } from './wire-inputs.js';
import type { DaemonIdentity } from './wire-schemas.js';

export type { DaemonIdentity } from './wire-schemas.js';

/** The HTTP status of each error code a route may answer with (500 for the rest). */
const STATUS: Partial<Record<CairnErrorCode, 400 | 404 | 409 | 422 | 500 | 502 | 503>> = {
  CAIRN_NOT_FOUND: 404,
  CAIRN_INVALID_STATE: 409,
  CAIRN_INVALID_ARGUMENT: 400,
  CAIRN_INVALID_PATH: 400,
  CAIRN_MANIFEST: 422,
  CAIRN_CONFIG: 422,
  CAIRN_BUSY: 409,
  CAIRN_CLOSED: 503,
  CAIRN_REMOTE: 502,
};

/**
 * The daemon's HTTP resources, one per route of the wire table (`wire.ts`), like Docker's Engine API: a
 * successful answer's JSON body is exactly what the API method returned; an error is `{ code, message, hint? }`
 * with a fitting status (413 for a body over the route's limit). Besides: `GET /events` (NDJSON, a `hello` line
 * first), `GET /health`, `POST /shutdown`.
 */
export function daemonRoutes(api: CairnApi, identity: DaemonIdentity, shutdown: () => void): Hono {
  const target: WireTarget = { api, identity, shutdown };
  const app = new Hono();
  app.onError((error, c) => {
    if (isCairnError(error)) return c.json(error.toJSON(), STATUS[error.code] ?? 500);
    return c.json({ code: 'CAIRN_INTERNAL', message: error.message }, 500);
  });
  app.notFound((c) =>
    c.json(
      {
        code: 'CAIRN_NOT_FOUND',
        message: `no resource ${c.req.method} ${c.req.path}`,
        hint: 'see GET /health; resources are under /agents, /inbox, /events, /sync, /collect',
      },
      404,
    ),
  );

  const limits = new Map<number, MiddlewareHandler>();
  const limited = (maxSize: number) => {
    let limit = limits.get(maxSize);
    if (limit === undefined) limits.set(maxSize, (limit = bodyLimitOf(maxSize)));
    return limit;
  };
  for (const route of Object.values(WIRE))
    app.on(route.method, route.path, limited(route.maxBody), async (c) => {
      const value = await route.answer(target, await readInput(c, route.method));
      return c.body(JSON.stringify(value ?? null), route.status, { 'Content-Type': 'application/json' });
    });

  app.on(EVENT_STREAM.method, EVENT_STREAM.path, async (c) => {
    const events = await api.subscribe(EVENT_STREAM.args(await readInput(c, EVENT_STREAM.method)));
    c.header('Content-Type', 'application/x-ndjson');
    c.header('Cache-Control', 'no-store');
    return stream(c, async (out) => {
      out.onAbort(() => void events.return?.());
      await out.write(JSON.stringify({ type: 'hello', time: new Date().toISOString(), pid: identity.pid }) + '\n');
      for (let next = await events.next(); next.done !== true; next = await events.next())
        await out.write(JSON.stringify(next.value) + '\n');
    });
  });
  return app;
}

/** A route's view of the request: every part still untrusted, the body parsed as JSON for a POST. */
async function readInput(c: Context, method: 'GET' | 'POST'): Promise<WireInput> {
  const body = method === 'POST' ? parseBody(await c.req.text()) : {};
  return {
    param: (name) => {
      const value = c.req.param(name);
      if (value === undefined) throw new CairnError('CAIRN_INVALID_ARGUMENT', `the path has no :${name}`);
      return value;
    },
    query: (name) => c.req.query(name),
    queries: (name) => c.req.queries(name),
    body,
  };
}

function bodyLimitOf(maxSize: number): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: (c) =>
      c.json(
        { code: 'CAIRN_INVALID_ARGUMENT', message: `the request body is larger than ${maxSize >> 20} MB`, hint: 'send less at once' },
        413,
      ),
  });
}
