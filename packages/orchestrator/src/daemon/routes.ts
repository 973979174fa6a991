import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { stream } from 'hono/streaming';
import { CairnError, isCairnError, type CairnErrorCode } from '../api/errors.js';
import type { AgentState, ReviewOptions, SpawnOptions } from '../api/types.js';
import type { CairnApi } from '../api/cairn-api.js';

const STATUS: Partial<Record<CairnErrorCode, 400 | 404 | 409 | 422 | 500 | 503>> = {
  CAIRN_NOT_FOUND: 404,
  CAIRN_INVALID_STATE: 409,
  CAIRN_INVALID_ARGUMENT: 400,
  CAIRN_INVALID_PATH: 400,
  CAIRN_MANIFEST: 422,
  CAIRN_CONFIG: 422,
  CAIRN_BUSY: 409,
  CAIRN_CLOSED: 503,
};

/** The largest request body a route reads: 1 MB, or 8 MB where it may carry a program (spawn, review). */
const MAX_BODY = 1 << 20;
const MAX_PROGRAM_BODY = 8 << 20;

const STATES: readonly AgentState[] = ['queued', 'running', 'reviewing', 'accepted', 'rejected', 'failed', 'decided'];

/** What the daemon answers besides the API: who it is. */
export interface DaemonIdentity {
  pid: number;
  root: string;
  version: string;
  startedAt: string;
}

/**
 * The daemon's HTTP resources over the orchestrator API (like Docker's Engine API): `GET /agents`,
 * `POST /agents`, `GET /agents/:id`, `…/changes`, `…/diff`, `…/files?path=`, `…/proposal?path=`, `POST …/accept|undo|reject|
 * restore|reply|replay`, `GET …/journal`, `GET …/wait`, `POST /sync`, `POST /collect`, `GET /events`
 * (NDJSON), `GET /health`, `POST /shutdown`. Errors are `{ code, message, hint? }` with a fitting status.
 */
export function daemonRoutes(api: CairnApi, identity: DaemonIdentity, shutdown: () => void): Hono {
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

  const limited = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: (c) =>
        c.json(
          { code: 'CAIRN_INVALID_ARGUMENT', message: `the request body is larger than ${maxSize >> 20} MB`, hint: 'send less at once' },
          413,
        ),
    });
  const small = limited(MAX_BODY);
  const large = limited(MAX_PROGRAM_BODY);
  app.use('*', (c, next) =>
    (c.req.method === 'POST' && (c.req.path === '/agents' || c.req.path.endsWith('/review')) ? large : small)(c, next),
  );

  app.get('/health', (c) => c.json({ ok: true, ...identity }));
  app.post('/shutdown', (c) => {
    setImmediate(shutdown);
    return c.json({ ok: true });
  });
  app.post('/sync', async (c) => c.json(await api.sync()));
  app.post('/collect', async (c) => {
    const body = await jsonBody(c);
    return c.json(await api.collect(numberField(body, 'olderThanMs')));
  });

  app.get('/agents', async (c) => {
    const raw = c.req.query('state');
    const states = raw === undefined || raw === '' ? undefined : raw.split(',').map(parseState);
    return c.json({ agents: await api.agents(states === undefined ? {} : { state: states }) });
  });
  app.post('/agents', async (c) => {
    const body = await jsonBody(c);
    const task = body.task;
    if (typeof task !== 'string') throw new CairnError('CAIRN_INVALID_ARGUMENT', 'the body needs a "task" text');
    const options = spawnOptions(body);
    const agent = body.mode === 'queue' ? await api.queue(task, options) : await api.spawn(task, options);
    return c.json({ agent }, 201);
  });
  app.get('/agents/:id', async (c) => c.json({ agent: await api.agent(c.req.param('id')) }));
  app.get('/agents/:id/changes', async (c) => c.json({ changes: await api.changes(c.req.param('id')) }));
  app.get('/agents/:id/diff', async (c) => {
    const paths = c.req.queries('path');
    return c.json({ diff: await api.diff(c.req.param('id'), paths) });
  });
  app.get('/agents/:id/files', async (c) => {
    const path = c.req.query('path');
    if (path === undefined) throw new CairnError('CAIRN_INVALID_ARGUMENT', 'give the file with ?path=');
    return c.json({ path, content: await api.proposed(c.req.param('id'), path) });
  });
  app.get('/agents/:id/proposal', async (c) => {
    const path = c.req.query('path');
    if (path === undefined) throw new CairnError('CAIRN_INVALID_ARGUMENT', 'give the file with ?path=');
    return c.json({ proposal: await api.proposal(c.req.param('id'), path) });
  });
  app.get('/agents/:id/journal', async (c) => c.json(await api.journal(c.req.param('id'))));
  app.get('/agents/:id/history', async (c) =>
    c.json({ events: await api.history(c.req.param('id'), Number(c.req.query('limit') ?? 20) || 20) }),
  );
  app.get('/agents/:id/wait', async (c) => {
    const raw = c.req.query('state');
    const states = raw === undefined || raw === '' ? undefined : raw.split(',').map(parseState);
    return c.json({ agent: await api.wait(c.req.param('id'), states) });
  });
  app.post('/agents/:id/accept', async (c) => {
    const body = await jsonBody(c);
    const options: { paths?: string[]; force?: boolean; partial?: boolean } = {};
    if (body.paths !== undefined) options.paths = stringList(body.paths, 'paths');
    if (body.force !== undefined) options.force = body.force === true;
    if (body.partial !== undefined) options.partial = body.partial === true;
    return c.json(await api.accept(c.req.param('id'), options));
  });
  app.post('/agents/:id/undo', async (c) => {
    const body = await jsonBody(c);
    return c.json(await api.undo(c.req.param('id'), { force: body.force === true }));
  });
  app.post('/agents/:id/reject', async (c) => {
    const body = await jsonBody(c);
    return c.json({ agent: await api.reject(c.req.param('id'), typeof body.reason === 'string' ? body.reason : undefined) });
  });
  app.post('/agents/:id/restore', async (c) => c.json({ agent: await api.restore(c.req.param('id')) }));
  app.post('/agents/:id/reply', async (c) => {
    const body = await jsonBody(c);
    if (typeof body.feedback !== 'string') throw new CairnError('CAIRN_INVALID_ARGUMENT', 'the body needs a "feedback" text');
    return c.json({ agent: await api.reply(c.req.param('id'), body.feedback) });
  });
  app.post('/agents/:id/replay', async (c) => c.json(await api.replay(c.req.param('id'))));
  app.post('/agents/:id/review', async (c) => {
    const body = await jsonBody(c);
    const options: ReviewOptions = spawnOptions(body);
    if (body.as !== undefined) {
      if (typeof body.as !== 'string') throw new CairnError('CAIRN_INVALID_ARGUMENT', '"as" must be a reviewer name');
      options.as = body.as;
    }
    return c.json({ agent: await api.review(c.req.param('id'), options) }, 201);
  });

  app.get('/inbox', async (c) => c.json({ threads: await api.inbox({ all: c.req.query('all') === '1' }) }));
  app.post('/inbox/process', async (c) => {
    const body = await jsonBody(c);
    return c.json(await api.processInbox(body.threads === undefined ? {} : { threads: stringList(body.threads, 'threads') }));
  });
  app.get('/inbox/log', async (c) => c.json(await api.inboxLog(c.req.query('date'))));

  app.get('/events', (c) => {
    const agentId = c.req.query('agent');
    c.header('Content-Type', 'application/x-ndjson');
    c.header('Cache-Control', 'no-store');
    return stream(c, async (out) => {
      const events = api.events(agentId === undefined ? {} : { agentId })[Symbol.asyncIterator]();
      out.onAbort(() => void events.return?.());
      await out.write(JSON.stringify({ type: 'hello', time: new Date().toISOString(), pid: identity.pid }) + '\n');
      for (;;) {
        const next = await events.next();
        if (next.done === true) break;
        await out.write(JSON.stringify(next.value) + '\n');
      }
    });
  });
  return app;
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CairnError('CAIRN_INVALID_ARGUMENT', 'the request body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new CairnError('CAIRN_INVALID_ARGUMENT', 'the request body must be a JSON object');
  return body as Record<string, unknown>;
}

function parseState(value: string): AgentState {
  if (!STATES.includes(value as AgentState))
    throw new CairnError('CAIRN_INVALID_ARGUMENT', `unknown state "${value}" (one of ${STATES.join(', ')})`);
  return value as AgentState;
}

function numberField(body: Record<string, unknown>, name: string): number {
  const value = body[name];
  if (typeof value !== 'number') throw new CairnError('CAIRN_INVALID_ARGUMENT', `the body needs a number "${name}"`);
  return value;
}

function stringList(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new CairnError('CAIRN_INVALID_ARGUMENT', `"${name}" must be a list of texts`);
  return value as string[];
}

function spawnOptions(body: Record<string, unknown>): SpawnOptions {
  const options: SpawnOptions = {};
  if (body.code !== undefined) options.code = body.code as string;
  if (body.lang !== undefined) options.lang = body.lang as 'js' | 'py';
  if (body.model !== undefined) options.model = body.model as string;
  if (body.limits !== undefined) options.limits = body.limits as SpawnOptions['limits'] & object;
  if (body.budgets !== undefined) options.budgets = body.budgets as SpawnOptions['budgets'] & object;
  if (body.scope !== undefined) options.scope = stringList(body.scope, 'scope');
  return options;
}
