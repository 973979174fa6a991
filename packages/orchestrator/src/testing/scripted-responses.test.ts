import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CLI_VERSIONS, agentCliEnv, agentClisRequired, findAgentCli, REQUIRE_AGENT_CLIS, runAgentCli } from '@cairn/exec/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedResponses } from './scripted-responses.js';

const codex = findAgentCli('codex');
const required = agentClisRequired();
if ('missing' in codex)
  process.stdout.write(
    `${codex.missing} (${required ? `${REQUIRE_AGENT_CLIS} is set: the test that needs it fails` : 'the test that needs it is skipped'})\n`,
  );

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function makeTempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cairn-codex-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The events of a server-sent-events body, each parsed. */
function readEvents(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? '';
      return { event: field('event'), data: JSON.parse(field('data')) as Record<string, unknown> };
    });
}

function postResponses(baseUrl: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer dummy', ...headers },
    body: JSON.stringify({ model: 'gpt-5.5', stream: true, tools: [{ type: 'function', name: 'exec_command' }], input: [], ...body }),
  });
}

/** The output items of `type` a request carries back to the model, by call id. */
function outputsOf(body: Record<string, unknown>, type: string): Map<string, unknown> {
  const input = (Array.isArray(body.input) ? body.input : []) as Record<string, unknown>[];
  return new Map(input.filter((item) => item.type === type).map((item) => [String(item.call_id), item.output]));
}

const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hello from the patch\n+second line\n*** End Patch\n';

describe('the scripted Responses server', () => {
  it('streams a turn of tool calls as Codex reads it, then the final answer, which repeats', async () => {
    const server = await startScriptedResponses([
      { text: 'Patching.', calls: [{ type: 'apply_patch', patch: PATCH }] },
      { calls: [{ type: 'exec_command', cmd: 'echo hi > ran.txt', workdir: '/tmp' }] },
      { text: 'Done.' },
    ]);
    cleanups.push(() => server.close());

    const first = readEvents(await (await postResponses(server.baseUrl, {})).text());
    const kinds = first.map((e) => e.event).filter((kind, i, all) => kind !== all[i - 1]);
    expect(kinds).toEqual([
      'response.created',
      'response.output_item.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const patchDeltas = first.filter((e) => e.event === 'response.custom_tool_call_input.delta').map((e) => String(e.data.delta));
    expect(patchDeltas.length).toBeGreaterThan(1);
    expect(patchDeltas.join('')).toBe(PATCH);
    const completed = first.at(-1)!.data.response as { output: Record<string, unknown>[]; usage: Record<string, unknown> };
    expect(completed.output[1]).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: PATCH, status: 'completed' });
    expect(completed.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });

    const second = readEvents(await (await postResponses(server.baseUrl, {})).text());
    const call = (second.at(-1)!.data.response as { output: Record<string, unknown>[] }).output[0]!;
    expect(call).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(String(call.arguments))).toEqual({ cmd: 'echo hi > ran.txt', workdir: '/tmp' });
    expect(call.call_id).not.toBe(completed.output[1]!.call_id);

    for (let i = 0; i < 2; i++) {
      const final = (await (await postResponses(server.baseUrl, { stream: false })).json()) as Record<string, unknown>;
      expect(final).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'message', content: [{ text: 'Done.' }] }] });
    }
    expect(server.turns).toHaveLength(4);
  });

  it('streams a tool search and a call of an MCP tool in its namespace, each turn computed from the request', async () => {
    const server = await startScriptedResponses((request, index) =>
      index === 0
        ? { calls: [{ type: 'tool_search', query: 'cairn environment', limit: 20 }] }
        : {
            calls: [
              { type: 'function', namespace: 'mcp__cairn', name: 'environment_open', arguments: { task: String(request.body.model) } },
            ],
          },
    );
    cleanups.push(() => server.close());
    const itemsOf = async (response: Response) =>
      readEvents(await response.text())
        .filter((e) => e.event === 'response.output_item.done')
        .map((e) => e.data.item as Record<string, unknown>);

    const [search] = await itemsOf(await postResponses(server.baseUrl, {}));
    expect(search).toMatchObject({ type: 'tool_search_call', execution: 'client', arguments: { query: 'cairn environment', limit: 20 } });
    const [call] = await itemsOf(await postResponses(server.baseUrl, {}));
    expect(call).toMatchObject({ type: 'function_call', namespace: 'mcp__cairn', name: 'environment_open' });
    expect(JSON.parse(String(call!.arguments))).toEqual({ task: 'gpt-5.5' });
    expect(call!.call_id).not.toBe(search!.call_id);
  });

  it('answers side requests without taking a turn of the script', async () => {
    const server = await startScriptedResponses([{ text: 'The answer.' }]);
    cleanups.push(() => server.close());
    const textOf = async (response: Response) =>
      readEvents(await response.text())
        .filter((e) => e.event === 'response.output_text.delta')
        .map((e) => e.data.delta)
        .join('');

    expect(await textOf(await postResponses(server.baseUrl, { tools: [] }))).toBe('OK.');
    const compact = await postResponses(server.baseUrl, {}, { 'x-codex-turn-metadata': JSON.stringify({ request_kind: 'compact' }) });
    expect(await textOf(compact)).toBe('OK.');
    expect(server.turns).toHaveLength(0);
    const turn = await postResponses(server.baseUrl, {}, { 'x-codex-turn-metadata': JSON.stringify({ request_kind: 'turn' }) });
    expect(await textOf(turn)).toBe('The answer.');
    expect(server.turns).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
    expect((await fetch(`${server.baseUrl}/models`)).status).toBe(404);
  });
});

describe(`Codex ${AGENT_CLI_VERSIONS.codex} against the scripted server`, () => {
  it.skipIf('missing' in codex && !required)('applies a patch that adds a file and runs a command in its working folder', async () => {
    if ('missing' in codex) throw new Error(codex.missing);
    const base = makeTempDir();
    const work = join(base, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'README.md'), '# a project\n');
    const server = await startScriptedResponses([
      { text: 'I will add the file.', calls: [{ type: 'apply_patch', patch: PATCH }] },
      { calls: [{ type: 'exec_command', cmd: 'echo hi > ran.txt' }] },
      { text: 'Both steps are done.' },
    ]);
    cleanups.push(() => server.close());

    const run = await runAgentCli('codex', {
      path: codex.path,
      prompt: 'Add hello.txt, then run echo.',
      cwd: work,
      env: agentCliEnv('codex', { baseUrl: server.baseUrl, home: join(base, 'home') }),
    });

    expect(run, run.stderr).toMatchObject({ code: 0, timedOut: false });
    expect(run.stdout).toContain('Both steps are done.');
    expect(readFileSync(join(work, 'hello.txt'), 'utf8')).toBe('hello from the patch\nsecond line\n');
    expect(readFileSync(join(work, 'ran.txt'), 'utf8')).toBe('hi\n');
    expect(server.turns).toHaveLength(3);
    for (const turn of server.turns) {
      expect(turn.path).toBe('/v1/responses');
      expect(turn.body.stream).toBe(true);
      expect(JSON.stringify(turn.body.input)).toContain(`<cwd>${work}</cwd>`);
    }
    const last = server.turns[2]!.body;
    const patched = outputsOf(last, 'custom_tool_call_output');
    const ran = outputsOf(last, 'function_call_output');
    expect([...patched.values()]).toEqual([expect.stringContaining('A hello.txt')]);
    expect([...ran.values()]).toEqual([expect.stringContaining('exited with code 0')]);
  });
});
