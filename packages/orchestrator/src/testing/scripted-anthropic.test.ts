import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AGENT_CLI_VERSIONS, agentCliEnv, agentClisRequired, findAgentCli, REQUIRE_AGENT_CLIS, runAgentCli } from '@cairn/exec/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedAnthropic } from './scripted-anthropic.js';

const claude = findAgentCli('claude');
const required = agentClisRequired();
if ('missing' in claude)
  process.stdout.write(
    `${claude.missing} (${required ? `${REQUIRE_AGENT_CLIS} is set: the test that needs it fails` : 'the test that needs it is skipped'})\n`,
  );

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function makeTempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cairn-claude-')));
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

function postMessages(baseUrl: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'dummy', ...headers },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 1000, tools: [{ name: 'Write' }], messages: [], ...body }),
  });
}

/** The tool results a request carries back to the model. */
function toolResults(body: Record<string, unknown>): { tool_use_id: string; is_error?: boolean; content: unknown }[] {
  const messages = (body.messages ?? []) as { content?: unknown }[];
  return messages
    .flatMap((message) => (Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : []))
    .filter((block) => block.type === 'tool_result') as { tool_use_id: string; is_error?: boolean; content: unknown }[];
}

describe('the scripted Anthropic server', () => {
  it('streams a turn of tool uses as Claude Code reads it, then the final answer, which repeats', async () => {
    const server = await startScriptedAnthropic([
      { text: 'Writing it.', toolUses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'a long enough content to be cut\n' } }] },
      { toolUses: [{ name: 'Bash', input: { command: 'echo hi' } }] },
      { text: 'Done.' },
    ]);
    cleanups.push(() => server.close());

    const first = readEvents(await (await postMessages(server.baseUrl, { stream: true })).text());
    const kinds = first.map((e) => e.event).filter((kind, i, all) => kind !== all[i - 1]);
    expect(kinds).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const toolStart = first[4]!.data.content_block as Record<string, unknown>;
    expect(toolStart).toMatchObject({ type: 'tool_use', name: 'Write', input: {} });
    const json = first
      .filter((e) => e.event === 'content_block_delta' && e.data.index === 1)
      .map((e) => (e.data.delta as { partial_json: string }).partial_json);
    expect(json.length).toBeGreaterThan(1);
    expect(JSON.parse(json.join(''))).toEqual({ file_path: 'a.txt', content: 'a long enough content to be cut\n' });
    expect(first.at(-2)!.data.delta).toMatchObject({ stop_reason: 'tool_use' });

    const second = readEvents(await (await postMessages(server.baseUrl, { stream: true })).text());
    const secondTool = second[1]!.data.content_block as { id: string; name: string };
    expect(secondTool.name).toBe('Bash');
    expect(secondTool.id).not.toBe(toolStart.id);

    for (let i = 0; i < 2; i++) {
      const final = (await (await postMessages(server.baseUrl, {})).json()) as Record<string, unknown>;
      expect(final).toMatchObject({
        type: 'message',
        role: 'assistant',
        stop_reason: 'end_turn',
        content: [{ type: 'text', text: 'Done.' }],
      });
    }
    expect(server.turns).toHaveLength(4);
  });

  it('answers side requests and probes without taking a turn of the script', async () => {
    const server = await startScriptedAnthropic([{ text: 'The answer.' }]);
    cleanups.push(() => server.close());

    expect((await fetch(`${server.baseUrl}/api/hello`, { method: 'HEAD' })).status).toBe(200);
    const title = (await (await postMessages(server.baseUrl, {}, { 'x-claude-code-request-class': 'title' })).json()) as {
      content: { text: string }[];
    };
    expect(title.content[0]!.text).toBe('OK.');
    const noTools = (await (await postMessages(server.baseUrl, { tools: [] })).json()) as { content: { text: string }[] };
    expect(noTools.content[0]!.text).toBe('OK.');
    expect(server.turns).toHaveLength(0);

    const main = readEvents(await (await postMessages(server.baseUrl, { stream: true }, { 'x-claude-code-request-class': 'main' })).text());
    expect(main.filter((e) => e.event === 'content_block_delta').map((e) => (e.data.delta as { text: string }).text)).toEqual([
      'The answer.',
    ]);
    expect(server.turns).toHaveLength(1);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'HEAD /api/hello',
      'POST /v1/messages',
      'POST /v1/messages',
      'POST /v1/messages',
    ]);
  });
});

function writeExecutable(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

/** Lays out `prefix` as npm installs the CLIs, with stand-in binaries at the given versions. */
function makeFakePrefix(prefix: string, versions: { claude: string; codex: string }): string {
  const modules = join(prefix, 'node_modules');
  writeExecutable(join(modules, '.bin', 'claude'), '#!/bin/sh\n');
  mkdirSync(join(modules, '@anthropic-ai', 'claude-code'), { recursive: true });
  writeFileSync(join(modules, '@anthropic-ai', 'claude-code', 'package.json'), JSON.stringify({ version: versions.claude }));
  const target = join(modules, '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl');
  writeExecutable(join(target, 'bin', 'codex'), '#!/bin/sh\n');
  writeFileSync(join(target, 'codex-package.json'), JSON.stringify({ version: versions.codex }));
  return prefix;
}

function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('finding and running the agent CLIs', () => {
  it('finds each CLI at its pinned version, and otherwise says what is missing and how to install it', () => {
    const empty = { CAIRN_AGENT_CLIS: makeTempDir(), HOME: makeTempDir() };
    const missing = findAgentCli('codex', empty);
    expect(missing).toEqual({
      missing: expect.stringContaining(`missing Codex ${AGENT_CLI_VERSIONS.codex} (codex) in ${empty.CAIRN_AGENT_CLIS} or `),
    });
    expect(missing).toEqual({ missing: expect.stringMatching(/: bash scripts\/install-agent-clis\.sh ".+"$/) });
    expect(findAgentCli('claude', { HOME: empty.HOME })).toEqual({
      missing: expect.stringMatching(/in .+\/\.cache\/cairn\/agent-clis: bash scripts\/install-agent-clis\.sh$/),
    });

    const old = makeFakePrefix(makeTempDir(), { claude: '2.0.0', codex: '0.1.0' });
    expect(findAgentCli('claude', { CAIRN_AGENT_CLIS: old, HOME: empty.HOME })).toEqual({
      missing: expect.stringContaining(`(found 2.0.0 at ${old}/node_modules/.bin/claude)`),
    });
    const pinned = makeFakePrefix(makeTempDir(), AGENT_CLI_VERSIONS);
    expect(findAgentCli('claude', { CAIRN_AGENT_CLIS: pinned, HOME: empty.HOME })).toEqual({ path: `${pinned}/node_modules/.bin/claude` });
    const home = makeTempDir();
    const cached = makeFakePrefix(join(home, '.cache', 'cairn', 'agent-clis'), AGENT_CLI_VERSIONS);
    expect(findAgentCli('codex', { CAIRN_AGENT_CLIS: old, HOME: home })).toEqual({
      path: `${cached}/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex`,
    });
  });

  it('pins the versions the install script installs', () => {
    const script = readFileSync(new URL('../../../../scripts/install-agent-clis.sh', import.meta.url), 'utf8');
    expect(script).toContain(`CLAUDE_VERSION=${AGENT_CLI_VERSIONS.claude}\n`);
    expect(script).toContain(`CODEX_VERSION=${AGENT_CLI_VERSIONS.codex}\n`);
  });

  it('gives each CLI an environment of its own that reaches only the scripted server', () => {
    const home = makeTempDir();
    const outside = { PATH: '/usr/bin:/bin', OPENAI_BASE_URL: 'https://example.com', ANTHROPIC_AUTH_TOKEN: 'real' };
    const claudeEnv = agentCliEnv('claude', { baseUrl: 'http://127.0.0.1:9', home }, outside);
    expect(claudeEnv).toMatchObject({
      PATH: '/usr/bin:/bin',
      HOME: home,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      ANTHROPIC_API_KEY: 'dummy',
    });
    expect(claudeEnv).not.toHaveProperty('ANTHROPIC_AUTH_TOKEN');
    const codexEnv = agentCliEnv('codex', { baseUrl: 'http://127.0.0.1:9/v1', home }, outside);
    expect(codexEnv).toMatchObject({ HOME: home, CODEX_HOME: join(home, '.codex'), OPENAI_API_KEY: 'dummy' });
    expect(codexEnv).not.toHaveProperty('OPENAI_BASE_URL');
    const config = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
    expect(config).toContain('model_provider = "local"');
    expect(config).toContain('base_url = "http://127.0.0.1:9/v1"');
  });

  it('kills what a CLI left running when it exits, and the whole CLI when it runs out of time', async () => {
    const dir = makeTempDir();
    const leaves = join(dir, 'leaves-a-child.sh');
    writeExecutable(leaves, '#!/bin/sh\nsleep 600 &\necho $! > left.pid\necho started\n');
    const exited = await runAgentCli('claude', { path: leaves, prompt: 'p', cwd: dir, env: { PATH: process.env.PATH ?? '' } });
    expect(exited).toMatchObject({ code: 0, timedOut: false, stdout: 'started\n' });
    const left = Number(readFileSync(join(dir, 'left.pid'), 'utf8'));
    await expect.poll(() => isAlive(left), { timeout: 10_000 }).toBe(false);

    const hangs = join(dir, 'hangs.sh');
    writeExecutable(hangs, '#!/bin/sh\nsleep 600 &\necho $! > hung.pid\nwait\n');
    const killed = await runAgentCli('codex', {
      path: hangs,
      prompt: 'p',
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 500,
    });
    expect(killed).toMatchObject({ code: null, signal: 'SIGKILL', timedOut: true });
    const hung = Number(readFileSync(join(dir, 'hung.pid'), 'utf8'));
    await expect.poll(() => isAlive(hung), { timeout: 10_000 }).toBe(false);
  });
});

describe(`Claude Code ${AGENT_CLI_VERSIONS.claude} against the scripted server`, () => {
  it.skipIf('missing' in claude && !required)('writes a file, edits it and runs a command in its working folder', async () => {
    if ('missing' in claude) throw new Error(claude.missing);
    const base = makeTempDir();
    const work = join(base, 'work');
    mkdirSync(work);
    const notes = join(work, 'notes.txt');
    const server = await startScriptedAnthropic([
      { text: 'I will write the notes.', toolUses: [{ name: 'Write', input: { file_path: notes, content: 'first line\nsecond line\n' } }] },
      { toolUses: [{ name: 'Edit', input: { file_path: notes, old_string: 'first line', new_string: 'edited line' } }] },
      { toolUses: [{ name: 'Bash', input: { command: 'echo hi > ran.txt', description: 'Write ran.txt' } }] },
      { text: 'All three steps are done.' },
    ]);
    cleanups.push(() => server.close());

    const run = await runAgentCli('claude', {
      path: claude.path,
      prompt: 'Write notes.txt, edit it, then run echo.',
      cwd: work,
      env: agentCliEnv('claude', { baseUrl: server.baseUrl, home: join(base, 'home') }),
    });

    expect(run, run.stderr).toMatchObject({ code: 0, timedOut: false });
    expect(run.stdout).toContain('All three steps are done.');
    expect(readFileSync(notes, 'utf8')).toBe('edited line\nsecond line\n');
    expect(readFileSync(join(work, 'ran.txt'), 'utf8')).toBe('hi\n');
    expect(server.turns).toHaveLength(4);
    for (const turn of server.turns) {
      expect(turn.path).toBe('/v1/messages');
      expect(turn.body.stream).toBe(true);
      expect(JSON.stringify(turn.body)).toContain(`Primary working directory: ${work}`);
    }
    const results = server.turns.slice(1).map((turn) => toolResults(turn.body).at(-1)!);
    expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_cairn000001', 'toolu_cairn000002', 'toolu_cairn000003']);
    expect(results.filter((r) => r.is_error === true)).toEqual([]);
  });
});
