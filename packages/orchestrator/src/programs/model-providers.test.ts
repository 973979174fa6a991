import { type AddressInfo, createServer } from 'node:net';
import { createModelClient } from '@cairn/model';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { type ScriptedOllama, startScriptedOllama } from '../testing/scripted-ollama.js';
import { type ScriptedOpenAi, startScriptedOpenAi } from '../testing/scripted-openai.js';
import { programAnswer, type ScriptedReply } from '../testing/scripted-reply.js';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '../testing/temp-project.js';

const GOOD = `const t = await read_file('src/greet.js');
await write_file('src/greet.js', t.replace('var text', 'const text'));
await submit_result('const instead of var', ['src/greet.js']);`;

const MODEL = 'openai/qwen2.5-coder-7b';

let temp: TempProject;
let project: Project | undefined;
let openai: ScriptedOpenAi | undefined;
let ollama: ScriptedOllama | undefined;

afterEach(async () => {
  await project?.close();
  await openai?.close();
  await ollama?.close();
  project = undefined;
  openai = undefined;
  ollama = undefined;
  temp.cleanup();
});

async function withOpenAi(
  script: readonly ScriptedReply[],
  options: { apiKey?: string; contextLength?: number; config?: Record<string, unknown>; modelTimeoutMs?: number } = {},
): Promise<Project> {
  temp = makeTempProject(SAMPLE_FILES);
  openai = await startScriptedOpenAi(script, ['qwen2.5-coder-7b'], {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.contextLength === undefined ? {} : { contextLength: options.contextLength }),
  });
  temp.write('.cairn/config.json', JSON.stringify({ model: { baseUrl: openai.baseUrl, ...options.config } }));
  project = temp.open(options.modelTimeoutMs === undefined ? {} : { modelTimeoutMs: options.modelTimeoutMs });
  await project.sync();
  return project;
}

/** The base URL of a port nothing listens on. */
async function closedBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

function chats() {
  return openai!.requests.filter((r) => r.path === '/v1/chat/completions');
}

describe('an OpenAI-compatible server (openai/NAME)', () => {
  it('writes the program through a streamed chat, without the prefix, in a window the server states', async () => {
    const p = await withOpenAi([programAnswer(GOOD)], { apiKey: 'sk-right', contextLength: 12_000, config: { apiKey: 'sk-right' } });
    const done = await p.wait((await p.spawn('use const in src/greet.js', { model: MODEL })).id);
    expect(done.reason).toBeUndefined();
    expect(done.state).toBe('reviewing');
    expect(done.model).toBe(MODEL);
    const [chat] = chats();
    expect(chat!.headers.authorization).toBe('Bearer sk-right');
    expect(chat!.body).toMatchObject({ model: 'qwen2.5-coder-7b', stream: true, max_tokens: 4096, temperature: 0.2 });
    const prompt = (chat!.body.messages as { content: string }[]).map((m) => m.content).join('\n');
    expect(Math.ceil(prompt.length / 4) + 4096).toBeLessThanOrEqual(12_000);
    expect(prompt).toContain('src/greet.js');
    const call = (await p.journal(done.id)).rows.find((r) => r.effect === 'llm.generate');
    expect(call?.detail).toMatch(/^window 12000 · prompt \d+/);
    await openai!.close();
    openai = undefined;
    expect((await p.replay(done.id)).ok).toBe(true);
  });

  it('takes bare names as OpenAI-compatible when the project says so, and lets programs ask it', async () => {
    const p = await withOpenAi([{ kind: 'answer', text: 'A greeting.' }], { config: { provider: 'openai', default: 'qwen2.5-coder-7b' } });
    const code = `await write_file('DOC.md', await ask_llm('Describe greet', await read_file('src/greet.js')));`;
    const done = await p.wait((await p.spawn('document greet', { code })).id);
    expect(done.state).toBe('reviewing');
    expect(done.model).toBe(MODEL);
    expect(chats()[0]!.body).toMatchObject({ model: 'qwen2.5-coder-7b', max_tokens: 2048 });
    expect(await p.proposed(done.id, 'DOC.md')).toBe('A greeting.');
  });

  it('reads a server that answers one JSON completion to a streamed request', async () => {
    const p = await withOpenAi([{ kind: 'answer', text: `\`\`\`js\n${GOOD}\n\`\`\`\n`, unstreamed: true }]);
    const done = await p.wait((await p.spawn('use const in src/greet.js', { model: MODEL })).id);
    expect(done.reason).toBeUndefined();
    expect(done.state).toBe('reviewing');
    expect(chats()).toHaveLength(1);
    expect(await p.proposed(done.id, 'src/greet.js')).toContain('const text');
  });

  it('says how to start the server, or where to point OPENAI_BASE_URL, when nothing listens', async () => {
    const p = await withOpenAi([programAnswer(GOOD)], { config: { baseUrl: await closedBaseUrl() } });
    const done = await p.wait((await p.spawn('use const', { model: MODEL })).id);
    expect(done.failure?.code).toBe('model-unreachable');
    expect(done.reason).toMatch(
      /^cannot reach the OpenAI-compatible server at http:\/\/127\.0\.0\.1:\d+\/v1 — start it, or set OPENAI_BASE_URL/,
    );
  });

  it('says OPENAI_BASE_URL should end in /v1 when the server has no API where it points', async () => {
    await (await withOpenAi([programAnswer(GOOD)])).close();
    temp.write('.cairn/config.json', JSON.stringify({ model: { baseUrl: openai!.baseUrl.replace(/\/v1$/, '') } }));
    project = temp.open();
    const done = await project.wait((await project.spawn('use const', { model: MODEL })).id);
    expect(done.failure?.code).toBe('model-error');
    expect(done.reason).toMatch(
      /has no chat-completions API there \(404\): set OPENAI_BASE_URL to its API's base URL, usually ending in \/v1/,
    );
    expect(done.failure?.hint).toMatch(/^export OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1 /);
    const listed = await createModelClient({
      provider: 'openai',
      openai: { baseUrl: openai!.baseUrl.replace(/\/v1$/, '') },
    }).describeModels();
    expect(listed.ok ? '' : listed.fault.message).toMatch(/has no model list there \(404\): set OPENAI_BASE_URL .* ending in \/v1/);
  });

  it('names OPENAI_API_KEY in one line when the key is refused', async () => {
    const p = await withOpenAi([programAnswer(GOOD)], { apiKey: 'sk-right', config: { apiKey: 'sk-wrong' } });
    const done = await p.wait((await p.spawn('use const', { model: MODEL })).id);
    expect(done.failure?.code).toBe('model-auth');
    expect(done.reason).toMatch(/refused the API key \(401\): set OPENAI_API_KEY/);
    expect(done.reason).not.toContain('\n');
  });

  it('names the model and how to list models when the server has no such model', async () => {
    const p = await withOpenAi([programAnswer(GOOD)]);
    const done = await p.wait((await p.spawn('use const', { model: 'openai/no-such-model' })).id);
    expect(done.failure?.code).toBe('model-missing');
    expect(done.reason).toMatch(/has no model "no-such-model" \(404\) — `cairn models` lists the models it has/);
  });

  it('backs off while the server is busy, honouring Retry-After, and gives up after a bounded number of tries', async () => {
    const busy: ScriptedReply = { kind: 'status', status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '1' } };
    const p = await withOpenAi([busy, programAnswer(GOOD)]);
    const started = Date.now();
    const done = await p.wait((await p.spawn('use const', { model: MODEL })).id);
    expect(done.state).toBe('reviewing');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(chats()).toHaveLength(2);
    await project!.close();
    await openai!.close();
    openai = await startScriptedOpenAi([
      { kind: 'status', status: 503, body: { error: { message: 'overloaded' } }, headers: { 'retry-after': '0' } },
    ]);
    temp.write('.cairn/config.json', JSON.stringify({ model: { baseUrl: openai.baseUrl } }));
    project = temp.open();
    const failed = await project.wait((await project.spawn('use const', { model: MODEL })).id);
    expect(failed.failure?.code).toBe('model-busy');
    expect(failed.reason).toMatch(/stayed busy \(503\) after several tries: overloaded/);
    expect(chats()).toHaveLength(4);
  });

  it('gives up on a server that stalls in the middle of a streamed answer', async () => {
    const p = await withOpenAi([{ kind: 'stall', text: 'Here is the program:\n```js\nconst t = 1;\n' }], { modelTimeoutMs: 4000 });
    const started = Date.now();
    const done = await p.wait((await p.spawn('use const', { model: MODEL })).id);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(done.failure?.code).toBe('model-timeout');
    expect(done.reason).toMatch(/stopped sending its answer for 1 s in the middle of it/);
    await until(() => chats()[0]?.closedEarly === true);
  });
});

describe('a reject stops a streamed generation at once', () => {
  const slow = (text: string): ScriptedReply => ({ kind: 'answer', text: text.repeat(40), chunkDelayMs: 50 });

  it('on Ollama: the server sees the connection close', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    ollama = await startScriptedOllama([slow('thinking about it… ')]);
    project = temp.open({ ollamaHost: ollama.host });
    await project.sync();
    const agent = await project.spawn('use const');
    await until(() => ollama!.requests.some((r) => r.path === '/api/chat'));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const started = Date.now();
    const rejected = await project.reject(agent.id, 'not this way');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(rejected.state).toBe('rejected');
    await until(() => ollama!.requests.find((r) => r.path === '/api/chat')?.closedEarly === true);
    expect(rejected.failure ?? (await project.agent(agent.id)).failure).toMatchObject({ code: 'cancelled' });
  });

  it('on an OpenAI-compatible server: the server sees the connection close', async () => {
    const p = await withOpenAi([slow('thinking about it… ')]);
    const agent = await p.spawn('use const', { model: MODEL });
    await until(() => chats().length > 0);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const rejected = await p.reject(agent.id);
    expect(rejected.state).toBe('rejected');
    await until(() => chats()[0]?.closedEarly === true);
  });
});

describe('the scripted servers speak both APIs, streamed and not', () => {
  it('answers the official clients', async () => {
    temp = makeTempProject({});
    openai = await startScriptedOpenAi([{ kind: 'answer', text: 'one answer', promptTokens: 5, completionTokens: 2 }], ['m'], {
      contextLength: 4096,
    });
    const client = new OpenAI({ baseURL: openai.baseUrl, apiKey: 'x' });
    const whole = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(whole.choices[0]!.message.content).toBe('one answer');
    expect(whole.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2 });
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    }))
      streamed += chunk.choices[0]?.delta?.content ?? '';
    expect(streamed).toBe('one answer');
    expect((await client.models.list()).data[0]).toMatchObject({ id: 'm', max_model_len: 4096 });
    ollama = await startScriptedOllama([{ kind: 'answer', text: 'another answer' }]);
    const local = new Ollama({ host: ollama.host });
    const answer = await local.chat({ model: 'qwen2.5-coder:7b', messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(answer.message.content).toBe('another answer');
    const shown = await local.show({ model: 'qwen2.5-coder:7b' });
    expect((shown.model_info as unknown as Record<string, unknown>)['qwen2.context_length']).toBe(32_768);
  });
});

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
