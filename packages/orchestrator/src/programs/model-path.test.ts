import { createServer } from 'node:net';
import type { CairnEvent } from '@cairn/api';
import { afterEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { programAnswer, type ScriptedOllama, startScriptedOllama } from '../testing/scripted-ollama.js';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '../testing/temp-project.js';

const GOOD = `const t = await read_file('src/greet.js');
await write_file('src/greet.js', t.replace('var text', 'const text'));
await submit_result('const instead of var', ['src/greet.js']);`;

let temp: TempProject;
let project: Project | undefined;
let server: ScriptedOllama | undefined;

afterEach(async () => {
  await project?.close();
  await server?.close();
  project = undefined;
  server = undefined;
  temp.cleanup();
});

async function setUp(script: Parameters<typeof startScriptedOllama>[0], options: { modelTimeoutMs?: number } = {}): Promise<Project> {
  temp = makeTempProject(SAMPLE_FILES);
  server = await startScriptedOllama(script);
  project = temp.open({ ollamaHost: server.host, ...options });
  await project.sync();
  return project;
}

function collect(p: Project): CairnEvent[] {
  const events: CairnEvent[] = [];
  const iterator = p.events()[Symbol.asyncIterator]();
  void (async () => {
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) events.push(next.value);
  })();
  return events;
}

describe('a model writes the program', () => {
  it('asks the model with the typed tools, the task and the tree; runs the program; replays without the model', async () => {
    const p = await setUp([programAnswer(GOOD)]);
    const agent = await p.spawn('use const in greet.js');
    const done = await p.wait(agent.id);
    expect(done.reason).toBeUndefined();
    expect(done.state).toBe('reviewing');
    expect(done.model).toBe('qwen2.5-coder:7b');
    expect(done.spent.tokens).toBeGreaterThan(0);
    const chat = server!.requests.find((r) => r.path === '/api/chat')!;
    const messages = chat.body.messages as { role: string; content: string }[];
    expect(messages[0]!.content).toContain('declare function read_file(path: string): Promise<string>;');
    expect(messages[1]!.content).toContain('use const in greet.js');
    expect(messages[1]!.content).toContain('greet.js');
    expect(await p.proposed(agent.id, 'src/greet.js')).toContain('const text');
    const log = await p.journal(agent.id);
    expect(log.rows.some((r) => r.effect === 'llm.generate' && (r.tokens ?? 0) > 0)).toBe(true);
    await server!.close();
    server = undefined;
    const replayed = await p.replay(agent.id);
    expect(replayed).toMatchObject({ ok: true });
    expect(replayed).not.toHaveProperty('divergence');
  });

  it('sends a refused program back with its report and runs the repaired one', async () => {
    const p = await setUp([programAnswer('const x = ;\n'), programAnswer(GOOD)]);
    const events = collect(p);
    const agent = await p.spawn('use const');
    const done = await p.wait(agent.id);
    expect(done.state).toBe('reviewing');
    expect(done.spent.repairs).toBe(1);
    const second = server!.requests.filter((r) => r.path === '/api/chat')[1]!;
    const report = (second.body.messages as { content: string }[])[1]!.content;
    expect(report).toMatch(/line 1, column \d+/);
    expect(report).toContain('const x = ;');
    expect(events.some((e) => e.type === 'agent.repairing')).toBe(true);
    expect((await p.replay(agent.id)).ok).toBe(true);
  });

  it('rolls back a failed attempt before the next, and reports the failing call', async () => {
    const failing = `await write_file('junk.txt', 'half done'); await read_file('no/such/file.js');`;
    const p = await setUp([programAnswer(failing), programAnswer(GOOD)]);
    const agent = await p.spawn('use const');
    const done = await p.wait(agent.id);
    expect(done.state).toBe('reviewing');
    expect((await p.changes(agent.id)).map((c) => c.path)).toEqual(['src/greet.js']);
    const second = server!.requests.filter((r) => r.path === '/api/chat')[1]!;
    expect((second.body.messages as { content: string }[])[1]!.content).toContain('no/such/file.js');
    expect((await p.replay(agent.id)).ok).toBe(true);
  });

  it('tells the model which tool functions there are when its program calls one that does not exist', async () => {
    const p = await setUp([programAnswer(`const files = await glob('src/*.js');\n`), programAnswer(GOOD)]);
    const done = await p.wait((await p.spawn('use const')).id);
    expect([done.state, done.spent.repairs]).toEqual(['reviewing', 1]);
    const second = server!.requests.filter((r) => r.path === '/api/chat')[1]!;
    const report = (second.body.messages as { content: string }[])[1]!.content;
    expect(report).toContain('The program stopped with ReferenceError at line 1, column 15: glob is not defined');
    expect(report).toMatch(/\nglob is not one of the tool functions a program can call: read_file, write_file, .*search_files/);
  });

  it('fails with the reason once garbage answers use up the repairs', async () => {
    const p = await setUp([{ kind: 'answer', text: 'I am sorry, I cannot help with that request today.' }]);
    const agent = await p.spawn('anything', { budgets: { repairs: 2 } });
    const done = await p.wait(agent.id);
    expect(done.state).toBe('failed');
    expect(done.failure?.code).toBe('model-answer');
    expect(server!.requests.filter((r) => r.path === '/api/chat')).toHaveLength(3);
  });

  it('treats a truncated answer as worth a repair', async () => {
    const p = await setUp([{ kind: 'answer', text: '```js\nconst t = await read_file(', doneReason: 'length' }, programAnswer(GOOD)]);
    const agent = await p.spawn('use const');
    expect((await p.wait(agent.id)).state).toBe('reviewing');
  });

  it('never runs an answer the output limit stopped, even when its code block looks whole', async () => {
    const cut = `await write_file('CUT.md', 'ran');\nawait submit_result('cut', ['CUT.md']);`;
    const whole = { kind: 'answer' as const, text: `\`\`\`js\n${cut}\n\`\`\`\n`, doneReason: 'length' as const };
    const p = await setUp([whole, whole]);
    const agent = await p.spawn('use const', { budgets: { repairs: 1 } });
    const done = await p.wait(agent.id);
    expect(done.state).toBe('failed');
    expect(done.failure?.message).toContain('cut off at the output limit');
    expect(await p.proposed(agent.id, 'CUT.md')).toBeNull();
    expect(server!.requests.filter((r) => r.path === '/api/chat')).toHaveLength(2);
    await server!.close();
    server = undefined;
    expect((await p.replay(agent.id)).ok).toBe(true);
  });

  it('lets a program ask the model, within the token budget', async () => {
    const p = await setUp([{ kind: 'answer', text: 'A friendly greeting.', promptTokens: 10, completionTokens: 5 }]);
    const agent = await p.spawn('document greet', {
      code: `const doc = await ask_llm('Describe greet', await read_file('src/greet.js')); await write_file('DOC.md', doc);`,
    });
    const done = await p.wait(agent.id);
    expect(done.state).toBe('reviewing');
    expect(done.spent.tokens).toBe(15);
    expect(await p.proposed(agent.id, 'DOC.md')).toBe('A friendly greeting.');
    expect((await p.replay(agent.id)).ok).toBe(true);
  });
});

describe('model faults are clear and never hang an agent', () => {
  it('says how to start Ollama when nothing listens', async () => {
    temp = makeTempProject(SAMPLE_FILES);
    const port = await freePort();
    project = temp.open({ ollamaHost: `http://127.0.0.1:${port}` });
    await project.sync();
    const agent = await project.spawn('anything');
    const done = await project.wait(agent.id);
    expect(done.failure?.code).toBe('model-unreachable');
    expect(done.reason).toBe(`cannot reach Ollama at http://127.0.0.1:${port} — start it with \`ollama serve\``);
    expect(done.failure?.hint).toMatch(/ollama serve/);
  });

  it('names a missing model, how to pull it and how to list the models there are', async () => {
    const p = await setUp([{ kind: 'status', status: 404, body: { error: 'model "tiny:1b" not found, try pulling it first' } }]);
    const done = await p.wait((await p.spawn('anything', { model: 'tiny:1b' })).id);
    expect(done.failure?.code).toBe('model-missing');
    expect(done.reason).toContain('run `ollama pull tiny:1b`');
    expect(done.reason).toContain('`cairn models` lists the models Ollama has');
  });

  it('gives up on a server that never answers', async () => {
    const p = await setUp([{ kind: 'hang' }], { modelTimeoutMs: 500 });
    const done = await p.wait((await p.spawn('anything')).id);
    expect(done.failure?.code).toBe('model-timeout');
  });

  it('asks once more when the connection is reset before anything was answered, and fails on a second reset', async () => {
    const p = await setUp([{ kind: 'reset' }, programAnswer(GOOD)]);
    const done = await p.wait((await p.spawn('use const in greet.js')).id);
    expect(done.state).toBe('reviewing');
    expect(server!.requests.filter((r) => r.path === '/api/chat')).toHaveLength(2);
    await server!.close();
    server = await startScriptedOllama([{ kind: 'reset' }]);
    await p.close();
    project = temp.open({ ollamaHost: server.host });
    const failed = await project.wait((await project.spawn('anything')).id);
    expect(failed.failure?.code).toBe('model-error');
    expect(failed.reason).toContain('dropped the connection');
  });

  it('names a server error and a dropped or malformed answer', async () => {
    const p = await setUp([{ kind: 'status', status: 500, body: { error: 'out of memory' } }]);
    const done = await p.wait((await p.spawn('anything')).id);
    expect(done.failure?.code).toBe('model-error');
    expect(done.reason).toContain('out of memory');
    await server!.close();
    await p.close();
    project = undefined;
    for (const reply of [{ kind: 'drop' as const }, { kind: 'malformed' as const }]) {
      server = await startScriptedOllama([reply]);
      project = temp.open({ ollamaHost: server.host });
      const failed = await project.wait((await project.spawn('anything')).id);
      expect(failed.failure?.code).toBe('model-error');
      await project.close();
      await server.close();
      project = undefined;
      server = undefined;
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
