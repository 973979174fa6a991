import { programAnswer, type ScriptedRequest, startScriptedOllama, startScriptedOpenAi } from '@cairn/orchestrator/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const USE_CONST = `const t = await read_file('src/greet.js');
await write_file('src/greet.js', t.replace('var text', 'const text'));
await submit_result('const in greet', ['src/greet.js']);`;

/** A project of a few thousand files in folders of 80, with the one a task will name. */
function thousandsOfFiles(): Record<string, string> {
  const files: Record<string, string> = {
    'src/greet.js': 'export function greet(name) {\n  var text = "Hello, " + name;\n  return text;\n}\n',
    'README.md': '# big\n',
  };
  for (let i = 0; i < 3000; i++)
    files[`src/feature${String(Math.floor(i / 80)).padStart(3, '0')}/module-${String(i % 80).padStart(3, '0')}.js`] =
      `export const value${i} = ${i};\n`;
  return files;
}

const TASK = 'use const instead of var in src/greet.js';

function promptOf(request: ScriptedRequest): string {
  return (request.body.messages as { content: string }[]).map((m) => m.content).join('\n');
}

let project: CliProject;

beforeEach(() => {
  project = makeCliProject(thousandsOfFiles());
});

afterEach(() => project.cleanup());

describe('the model path through the binary', () => {
  it('Ollama by default: the request states its window, the prompt fits it, the named file is in it, and cairn log shows it', async () => {
    const ollama = await startScriptedOllama([programAnswer(USE_CONST)]);
    try {
      const env = { OLLAMA_HOST: ollama.host };
      const run = await project.run(['spawn', TASK, '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      const agent = resultOf(run).agent as { id: string; state: string; model: string };
      expect(agent).toMatchObject({ state: 'reviewing', model: 'qwen2.5-coder:7b' });
      const chat = ollama.requests.find((r) => r.path === '/api/chat')!;
      const options = chat.body.options as { num_ctx: number; num_predict: number };
      expect(options.num_ctx).toBe(16_384);
      expect(Math.ceil(promptOf(chat).length / 4) + options.num_predict).toBeLessThanOrEqual(options.num_ctx);
      expect(promptOf(chat)).toContain('- src/greet.js');
      const log = await project.run(['log', agent.id, '--no-pager'], { env });
      expect(log.stdout).toMatch(/window 16384 · prompt \d+ \(~\d+\) · out \d+\/\d+ · first token \d+ ms · temp 0\.2/);
      expect(log.stdout).toMatch(/~\d+ of 16384 tokens, answer ≤ \d+, built in \d+ ms; map: 1 named/);
      const replay = await project.run(['replay', agent.id], { env: { OLLAMA_HOST: 'http://127.0.0.1:9' } });
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      const models = await project.run(['models'], { env });
      expect(models.code).toBe(0);
      expect(models.stdout).toMatch(/qwen2\.5-coder:7b\s+32768\s+4\.7 GB/);
    } finally {
      await ollama.close();
    }
  });

  it('openai/NAME with OPENAI_BASE_URL and OPENAI_API_KEY; a wrong key is one clear line', async () => {
    const server = await startScriptedOpenAi([programAnswer(USE_CONST)], ['qwen2.5-coder-7b'], {
      apiKey: 'sk-good',
      contextLength: 32_768,
    });
    try {
      const env = { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-good' };
      const run = await project.run(['spawn', '--model', 'openai/qwen2.5-coder-7b', TASK, '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(resultOf(run).agent).toMatchObject({ state: 'reviewing', model: 'openai/qwen2.5-coder-7b' });
      const chat = server.requests.find((r) => r.path === '/v1/chat/completions')!;
      expect(chat.body).toMatchObject({ model: 'qwen2.5-coder-7b', stream: true });
      expect(Math.ceil(promptOf(chat).length / 4) + Number(chat.body.max_tokens)).toBeLessThanOrEqual(16_384);
      expect(promptOf(chat)).toContain('- src/greet.js');
      project.write('.cairn/config.json', JSON.stringify({ model: { provider: 'openai' } }));
      const models = await project.run(['models', '--json'], { env });
      expect(resultOf(models)).toMatchObject({
        ok: true,
        provider: 'openai',
        models: [{ name: 'qwen2.5-coder-7b', contextLength: 32_768 }],
      });
      const wrong = await project.run(['spawn', '--model', 'openai/qwen2.5-coder-7b', TASK], { env: { ...env, OPENAI_API_KEY: 'sk-bad' } });
      expect(wrong.code).toBe(1);
      const said = (wrong.stdout + wrong.stderr).split('\n').filter((line) => line.includes('OPENAI_API_KEY'));
      expect(said.length).toBeGreaterThan(0);
      expect(said[0]).toMatch(/refused the API key \(401\): set OPENAI_API_KEY/);
      const unlisted = await project.run(['models'], { env: { ...env, OPENAI_API_KEY: 'sk-bad' } });
      expect(unlisted.code).toBe(1);
      expect(unlisted.stdout).toMatch(/cannot list models: .*OPENAI_API_KEY/);
    } finally {
      await server.close();
    }
  });

  it('cairn models lists the OpenAI-compatible server OPENAI_BASE_URL names beside Ollama', async () => {
    const ollama = await startScriptedOllama([programAnswer(USE_CONST)]);
    const server = await startScriptedOpenAi([programAnswer(USE_CONST)], ['qwen2.5-coder-7b'], {
      apiKey: 'sk-good',
      contextLength: 32_768,
    });
    try {
      const env = { OLLAMA_HOST: ollama.host, OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'sk-good' };
      const both = await project.run(['models'], { env });
      expect(both.code, both.stderr).toBe(0);
      expect(both.stdout).toMatch(/qwen2\.5-coder:7b\s+32768\s+4\.7 GB/);
      expect(both.stdout).toMatch(/on the OpenAI-compatible server at http:\/\/127\.0\.0\.1:\d+\/v1:/);
      expect(both.stdout).toMatch(/openai\/qwen2\.5-coder-7b\s+32768/);
      const refused = await project.run(['models'], { env: { ...env, OPENAI_API_KEY: 'sk-bad' } });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/qwen2\.5-coder:7b\s+32768/);
      expect(refused.stdout).toMatch(/cannot list models \(the OpenAI-compatible server\): .*OPENAI_API_KEY/);
    } finally {
      await ollama.close();
      await server.close();
    }
  });

  it('takes the model settings of .cairn/config.json, and spawn flags over them', async () => {
    const ollama = await startScriptedOllama([programAnswer(USE_CONST)], ['tiny:1b']);
    try {
      project.write('.cairn/config.json', JSON.stringify({ model: { default: 'tiny:1b', contextTokens: 8192, seed: 3 } }));
      const env = { OLLAMA_HOST: ollama.host };
      const run = await project.run(['spawn', TASK, '--temperature', '0.4', '--max-output-tokens', '2000', '--json'], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(resultOf(run).agent).toMatchObject({ state: 'reviewing', model: 'tiny:1b' });
      const chat = ollama.requests.find((r) => r.path === '/api/chat')!;
      expect(chat.body.options).toMatchObject({ num_ctx: 8192, num_predict: 2000, temperature: 0.4, seed: 3 });
      const bad = await project.run(['spawn', TASK, '--temperature', 'hot'], { env });
      expect(bad.code).toBe(2);
      project.write('.cairn/config.json', JSON.stringify({ model: { contextTokens: 'big' } }));
      const refused = await project.run(['spawn', TASK, '--json'], { env });
      expect(refused.code).toBe(1);
      expect(resultOf(refused)).toMatchObject({ type: 'error', code: 'CAIRN_CONFIG' });
    } finally {
      await ollama.close();
    }
  });
});
