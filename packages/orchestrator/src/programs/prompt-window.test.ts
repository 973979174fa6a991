import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { programAnswer, type ScriptedOllama, type ScriptedRequest, startScriptedOllama } from '../testing/scripted-ollama.js';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '../testing/temp-project.js';
import { buildLegacyProgramPrompt } from './legacy-prompt.js';

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

/** A generated project of `count` files in folders of 80, plus the sample files. */
function bigTree(count: number): Record<string, string> {
  const files: Record<string, string> = { ...SAMPLE_FILES };
  for (let i = 0; i < count; i++) {
    const folder = `src/feature${String(Math.floor(i / 80)).padStart(3, '0')}`;
    files[`${folder}/module-${String(i % 80).padStart(3, '0')}.ts`] =
      `export function run${i}(input: number): number {\n  return input + ${i};\n}\n`;
  }
  return files;
}

async function setUp(
  files: Record<string, string>,
  script: Parameters<typeof startScriptedOllama>[0],
  options: { contextLength?: number | null; config?: unknown } = {},
): Promise<Project> {
  temp = makeTempProject(files);
  if (options.config !== undefined) temp.write('.cairn/config.json', JSON.stringify(options.config));
  server = await startScriptedOllama(
    script,
    ['qwen2.5-coder:7b'],
    options.contextLength === undefined ? {} : { contextLength: options.contextLength },
  );
  project = temp.open({ ollamaHost: server.host });
  await project.sync();
  return project;
}

function chats(): ScriptedRequest[] {
  return server!.requests.filter((r) => r.path === '/api/chat');
}

function promptOf(request: ScriptedRequest): string {
  return (request.body.messages as { content: string }[]).map((m) => m.content).join('\n');
}

describe('the prompt fits an explicit window', () => {
  it('states num_ctx and num_predict on every request, and the prompt of a large project fits them with the named file in it', async () => {
    const p = await setUp(bigTree(8000), [programAnswer(GOOD)]);
    const agent = await p.spawn('rename run1234 in src/feature015/module-034.ts to runTwelve and keep greet.js as it is');
    const done = await p.wait(agent.id);
    expect(done.state).toBe('reviewing');
    const [chat] = chats();
    const options = chat!.body.options as { num_ctx: number; num_predict: number };
    expect(options.num_ctx).toBe(16_384);
    expect(options.num_predict).toBe(4096);
    const prompt = promptOf(chat!);
    // the server's own count (characters / 4) plus the answer fits the window, with room to spare
    expect(Math.ceil(prompt.length / 4) + options.num_predict).toBeLessThanOrEqual(options.num_ctx);
    expect(prompt).toContain('src/feature015/module-034.ts');
    expect(prompt).toContain('export function run1234(input: number): number');
    expect(prompt).toContain('src/greet.js');
    expect(prompt).toMatch(/feature09\d\/ — 80 files/);
    expect(server!.requests.filter((r) => r.path === '/api/show')).toHaveLength(1);
    const log = await p.journal(agent.id);
    const built = log.rows.find((r) => r.kind === 'prompt');
    expect(built?.detail).toMatch(/of 16384 tokens, answer ≤ 4096, built in \d+ ms; map: 2 named/);
    const call = log.rows.find((r) => r.effect === 'llm.generate');
    expect(call?.detail).toMatch(/window 16384 · prompt \d+ \(~\d+\) · out \d+\/4096 · first token \d+ ms · temp 0.2/);
    expect((await p.replay(agent.id)).ok).toBe(true);
  });

  it("keeps to a model's smaller context and to the project's contextTokens, temperature and seed", async () => {
    const config = { model: { contextTokens: 6000, temperature: 0.5, seed: 7, maxOutputTokens: 1000 } };
    const p = await setUp(bigTree(1500), [programAnswer(GOOD)], { contextLength: 8192, config });
    const done = await p.wait((await p.spawn('use const in src/greet.js')).id);
    expect(done.state).toBe('reviewing');
    const options = chats()[0]!.body.options as Record<string, number>;
    expect(options).toMatchObject({ num_ctx: 6000, num_predict: 1000, temperature: 0.5, seed: 7 });
    expect(Math.ceil(promptOf(chats()[0]!).length / 4) + 1000).toBeLessThanOrEqual(6000);
    const call = (await p.journal(done.id)).rows.find((r) => r.effect === 'llm.generate');
    expect(call?.detail).toContain('window 6000');
    expect(call?.detail).toContain('temp 0.5 seed 7');
    const spawnFlags = await p.wait(
      (await p.spawn('use const in src/greet.js', { modelOptions: { contextTokens: 4096, temperature: 0 } })).id,
    );
    expect(spawnFlags.state).toBe('reviewing');
    expect(chats()[1]!.body.options).toMatchObject({ num_ctx: 4096, temperature: 0, seed: 7 });
  });

  it('fails an attempt whose prompt the server cut, without running its program', async () => {
    const p = await setUp(bigTree(3000), [{ ...programAnswer(GOOD), promptTokens: 2048 } as never]);
    const done = await p.wait((await p.spawn('use const in src/greet.js')).id);
    expect(done.state).toBe('failed');
    expect(done.failure?.code).toBe('model-window');
    expect(done.reason).toMatch(/the server cut the prompt: it read 2048 of its ~\d+ tokens/);
    expect(await p.changes(done.id)).toEqual([]);
    expect((await p.replay(done.id)).ok).toBe(true);
  });

  it('refuses a window too small for the instructions before asking', async () => {
    const p = await setUp(SAMPLE_FILES, [programAnswer(GOOD)], { contextLength: 1024 });
    const done = await p.wait((await p.spawn('use const in src/greet.js')).id);
    expect(done.failure?.code).toBe('model-window');
    expect(done.reason).toMatch(/1024-token window of qwen2.5-coder:7b cannot hold the instructions/);
    expect(chats()).toHaveLength(0);
    expect((await p.replay(done.id)).ok).toBe(true);
  });

  it('does not run an answer cut off by the output limit, and repairs it', async () => {
    const p = await setUp(SAMPLE_FILES, [
      { kind: 'answer', text: '```js\nconst t = await read_file(', doneReason: 'length' },
      programAnswer(GOOD),
    ]);
    const done = await p.wait((await p.spawn('use const')).id);
    expect(done.state).toBe('reviewing');
    expect(done.spent.repairs).toBe(1);
    const rows = (await p.journal(done.id)).rows;
    expect(rows.some((r) => r.kind === 'program' && r.decision === 'unusable' && /cut off/.test(r.detail ?? ''))).toBe(true);
    expect(rows.find((r) => r.effect === 'llm.generate')?.detail).toContain('stopped: length');
    expect((await p.replay(done.id)).ok).toBe(true);
  });

  it('gives ask_llm an explicit window and refuses a question that leaves no room for an answer', async () => {
    const p = await setUp(SAMPLE_FILES, [{ kind: 'answer', text: 'A greeting.', promptTokens: 10, completionTokens: 3 }], {
      contextLength: 2048,
    });
    const code = `
      const short = await ask_llm('Describe greet', await read_file('src/greet.js'));
      let refused = '';
      try { await ask_llm('Summarise', 'x'.repeat(9000)); } catch (e) { refused = String(e.message); }
      await write_file('DOC.md', short + '\\n' + refused);`;
    const done = await p.wait((await p.spawn('document greet', { code })).id);
    expect(done.state).toBe('reviewing');
    expect(chats()[0]!.body.options).toMatchObject({ num_ctx: 2048 });
    expect(chats()).toHaveLength(1);
    const doc = (await p.proposed(done.id, 'DOC.md')) ?? '';
    expect(doc).toContain('A greeting.');
    expect(doc).toMatch(/leaves no room for an answer in the 2048-token window/);
    expect((await p.replay(done.id)).ok).toBe(true);
  });
});

describe('journals written before prompts were fitted', () => {
  it('rebuild their prompts byte for byte', () => {
    const hash = (input: Parameters<typeof buildLegacyProgramPrompt>[0]) =>
      createHash('sha256')
        .update(JSON.stringify(buildLegacyProgramPrompt(input)))
        .digest('hex');
    expect(hash({ task: 'use const in src/greet.js', lang: 'js', fileTree: 'README.md\nsrc/\n  greet.js' })).toBe(
      'bb7cf69ae9c990811e6bb14e9d0535d2dbb7644cbd6379b202f8cc3d96784ebd',
    );
    expect(hash({ task: 'rename greet', lang: 'py', fileTree: 'a.py', previous: { program: 'x = 1', report: 'The program failed' } })).toBe(
      '2e156f37201fd6795150be3b60c664eb9e23feb1d5f8d8ec7c6f7c62e849755f',
    );
    expect(hash({ task: 'review', lang: 'js', fileTree: 'a.js', reviewer: true })).toBe(
      '7f2a5bb065e309fcc0dc05e7567495b87a3b43fc6699db0b6d28d09fa1e7fa62',
    );
    expect(hash({ task: 't', lang: 'js', fileTree: 'a.js', feedback: 'use let', previous: { program: 'log(1)', report: '' } })).toBe(
      '68456b0d2e8ca7f0bbccf6658dc67325d1cad1c9b6ab762a356494795c2d8aba',
    );
  });
});
