import type { Project } from '@cairn/orchestrator';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '@cairn/orchestrator/testing';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonRoutes } from './routes.js';
import { requestTarget, WIRE } from './wire.js';
import { agentInfoSchema } from './wire-schemas.js';

let temp: TempProject;
let project: Project;
let app: ReturnType<typeof daemonRoutes>;
let shutdowns = 0;
const identity = { pid: process.pid, root: '/the/project', version: '0.0.0-test', startedAt: '2026-11-25T00:00:00.000Z' };

beforeAll(async () => {
  temp = makeTempProject(SAMPLE_FILES);
  project = temp.open();
  await project.sync();
  app = daemonRoutes(project, identity, () => shutdowns++);
});

afterAll(async () => {
  await project.close();
  temp.cleanup();
});

/** Sends a request to the app as the socket would, and reads the JSON answer. */
async function send(method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; json: unknown }> {
  const response = await app.request(path, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, json: await response.json() };
}

const post = (path: string, body: unknown) => send('POST', path, typeof body === 'string' ? body : JSON.stringify(body));

async function reviewingAgent(): Promise<string> {
  const agent = await project.spawn('for the routes', { code: `await write_file('routes.txt', 'r');` });
  expect((await project.wait(agent.id)).state).toBe('reviewing');
  return agent.id;
}

describe('the routes answer with exactly what the API returns', () => {
  it('a created agent, a list, a text and null are the body as they are, with no wrapper', async () => {
    const created = await post('/agents', { task: 'plain answers', code: `await write_file('plain.txt', 'p');` });
    expect(created.status).toBe(201);
    const agent = v.parse(agentInfoSchema, created.json);
    expect(agent).toMatchObject({ task: 'plain answers', origin: 'code' });
    await project.wait(agent.id);
    const listed = await send('GET', '/agents?state=reviewing');
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.json)).toBe(true);
    expect(listed.json).toContainEqual(expect.objectContaining({ id: agent.id, state: 'reviewing' }));
    expect(await send('GET', `/agents/${agent.id}/files?path=plain.txt`)).toEqual({ status: 200, json: 'p' });
    const diff = await send('GET', `/agents/${agent.id}/diff?path=plain.txt`);
    expect(diff.json).toBe(await project.diff(agent.id, ['plain.txt']));
    const deleting = await project.spawn('delete the readme', { code: `await delete_file('README.md');` });
    expect((await project.wait(deleting.id)).state).toBe('reviewing');
    expect(await send('GET', `/agents/${deleting.id}/files?path=README.md`)).toEqual({ status: 200, json: null });
    const queued = await post('/agents', { task: 'at the back', mode: 'queue', code: `await write_file('q.txt', 'q');` });
    expect(queued.status).toBe(201);
    expect(queued.json).toMatchObject({ task: 'at the back' });
  });

  it('health and shutdown are the daemon own answers', async () => {
    expect(await send('GET', '/health')).toEqual({ status: 200, json: { ok: true, ...identity } });
    expect(await post('/shutdown', '')).toEqual({ status: 200, json: { ok: true } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(shutdowns).toBe(1);
  });

  it('every route of the wire table is mounted', async () => {
    for (const route of Object.values(WIRE)) {
      if (route === WIRE.shutdown) continue;
      const answer = await send(
        route.method,
        requestTarget(route.path, { params: { id: 'beef0', name: 'test' } }),
        route.method === 'POST' ? '{}' : undefined,
      );
      expect(answer.json, `${route.method} ${route.path}`).not.toMatchObject({ message: expect.stringMatching(/^no resource/) });
    }
    expect(await send('GET', '/nowhere')).toMatchObject({
      status: 404,
      json: { code: 'CAIRN_NOT_FOUND', message: 'no resource GET /nowhere' },
    });
  });

  it('errors are { code, message, hint? } with the status of their code', async () => {
    expect(await send('GET', '/agents/beef0')).toEqual({
      status: 404,
      json: { code: 'CAIRN_NOT_FOUND', message: 'no agent "beef0" in this project', hint: 'list agents with `cairn ls`' },
    });
    const id = await reviewingAgent();
    expect(await post(`/agents/${id}/restore`, {})).toMatchObject({ status: 409, json: { code: 'CAIRN_INVALID_STATE' } });
    expect(await send('GET', `/agents/${id}/diff?path=../x`)).toMatchObject({ status: 400, json: { code: 'CAIRN_INVALID_PATH' } });
  });
});

describe('every input is checked as untrusted', () => {
  const invalid = (message: string | RegExp) => ({
    status: 400,
    json: { code: 'CAIRN_INVALID_ARGUMENT', message: typeof message === 'string' ? message : expect.stringMatching(message) },
  });

  it('a body that is not JSON, or not an object', async () => {
    expect(await post('/agents', '{"task": ')).toEqual(invalid('the request body is not JSON'));
    expect(await post('/agents', '["a task"]')).toEqual(invalid('the request body must be a JSON object'));
    expect(await post('/collect', 'null')).toEqual(invalid('the request body must be a JSON object'));
  });

  it('fields of the wrong type, each named', async () => {
    const id = await reviewingAgent();
    const before = await project.agents();
    expect(await post('/agents', { task: 5 })).toEqual(invalid('the body needs a "task" text'));
    expect(await post('/agents', { task: 'x', mode: 'later' })).toEqual(invalid('"mode" must be "spawn" or "queue" (got "later")'));
    expect(await post('/agents', { task: 'x', lang: 'rb' })).toEqual(invalid('unknown language "rb" (js or py)'));
    expect(await post('/agents', { task: 'x', code: 42 })).toEqual(invalid("code must be the program's source text"));
    expect(await post('/agents', { task: 'x', limits: { wallMs: 'fast' } })).toEqual(invalid(/the wallMs limit must be a number/));
    expect(await post('/agents', { task: 'x', scope: 'src' })).toEqual(invalid('scope must be a list of paths'));
    expect(await project.agents()).toEqual(before);
    expect(await post(`/agents/${id}/accept`, { force: 'yes' })).toEqual(invalid('"force" must be true or false'));
    expect(await post(`/agents/${id}/accept`, { paths: 'routes.txt' })).toEqual(invalid('"paths" must be a list of texts'));
    expect(await post(`/agents/${id}/undo`, { force: 1 })).toEqual(invalid('"force" must be true or false'));
    expect(await post(`/agents/${id}/reject`, { reason: ['no'] })).toEqual(invalid('"reason" must be a text'));
    expect(await post(`/agents/${id}/reply`, { feedback: 3 })).toEqual(invalid('the body needs a "feedback" text'));
    expect(await post(`/agents/${id}/review`, { as: 5 })).toEqual(invalid('"as" must be a reviewer name'));
    expect(await post(`/agents/${id}/review`, { scope: ['src'] })).toEqual(invalid('a reviewer takes no "scope": it writes nothing'));
    expect(await post('/collect', { olderThanMs: '1' })).toEqual(invalid('the body needs a number "olderThanMs"'));
    expect(await post('/inbox/process', { threads: [1] })).toEqual(invalid('"threads" must be a list of texts'));
    expect(await send('GET', `/agents/${id}/history?limit=many`)).toEqual(invalid('?limit= must be a number (got "many")'));
    expect(await send('GET', '/inbox?all=maybe')).toEqual(invalid('?all= must be 1 or 0 (got "maybe")'));
    expect(await send('GET', `/agents/${id}/files`)).toEqual(invalid('give the file with ?path='));
    expect((await project.agent(id)).state).toBe('reviewing');
  });

  it('an unknown state in ?state=', async () => {
    const id = await reviewingAgent();
    const unknown = invalid('unknown state "bogus" (one of queued, running, reviewing, accepted, rejected, failed, decided)');
    expect(await send('GET', '/agents?state=reviewing,bogus')).toEqual(unknown);
    expect(await send('GET', `/agents/${id}/wait?state=bogus`)).toEqual(unknown);
  });

  it('a body over the route limit is 413, and a program may be larger than other bodies', async () => {
    const tooLarge = (mb: number) => ({
      status: 413,
      json: { code: 'CAIRN_INVALID_ARGUMENT', message: `the request body is larger than ${mb} MB`, hint: 'send less at once' },
    });
    const id = await reviewingAgent();
    expect(await post(`/agents/${id}/reply`, { feedback: 'x'.repeat(1 << 20) })).toEqual(tooLarge(1));
    expect((await project.agent(id)).state).toBe('reviewing');
    // 2 MB reaches the spawn route's checks (8 MB is its limit); 9 MB does not
    expect(await post('/agents', { task: 5, padding: 'x'.repeat(2 << 20) })).toEqual(invalid('the body needs a "task" text'));
    expect(await post('/agents', { task: 5, padding: 'x'.repeat(9 << 20) })).toEqual(tooLarge(8));
  });
});
