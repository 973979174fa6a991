import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AnthropicToolUse,
  type AnthropicTurn,
  agentCliEnv,
  agentCliForTests,
  runAgentCli,
  type ScriptedRequest,
  startScriptedAnthropic,
} from '@cairn/orchestrator/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_CLI_FILES, expectAgentCliProposal } from './test-support/agent-cli-proposal.js';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const { cli: claude, runs } = agentCliForTests('claude');
const withClaude = runs ? it : it.skip;

let project: CliProject | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  project?.cleanup();
  project = undefined;
});

const FILES = AGENT_CLI_FILES;

/** A tool result Claude Code sent back to the model: its text, and whether it is an error. */
interface SentResult {
  id: string;
  text: string;
  isError: boolean;
}

/** The tool results a request to the model carries, oldest first. */
function sentResults(request: ScriptedRequest): SentResult[] {
  const messages = (request.body.messages ?? []) as { content?: unknown }[];
  return messages
    .flatMap((message) => (Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : []))
    .filter((block) => block.type === 'tool_result')
    .map((block) => ({
      id: String(block.tool_use_id),
      isError: block.is_error === true,
      text:
        typeof block.content === 'string'
          ? block.content
          : ((block.content ?? []) as { text?: string }[]).map((part) => part.text ?? '').join('\n'),
    }));
}

/**
 * The scripted model: it opens an environment, then makes one Cairn call a turn with the id the server
 * answered, then says it is done. Each step is the tool's name (without `mcp__cairn__`) and its input.
 */
function cairnScript(steps: readonly [string, Record<string, unknown>][]): (request: ScriptedRequest, index: number) => AnthropicTurn {
  let environment: string | undefined;
  const use = (name: string, input: Record<string, unknown>): AnthropicTurn => ({
    toolUses: [{ name: `mcp__cairn__${name}`, input } satisfies AnthropicToolUse],
  });
  return (request, index) => {
    if (index === 0) return use('environment_open', { task: 'rename the word' });
    if (index === 1) {
      const opened = sentResults(request)
        .at(-1)
        ?.text.match(/opened environment (\S+) over the project/);
      if (opened === null || opened === undefined) return { text: 'environment_open did not answer with an id.' };
      environment = opened[1];
    }
    const step = steps[index - 1];
    return step === undefined ? { text: 'Done.' } : use(step[0], { environment, ...step[1] });
  };
}

describe('Claude Code with the cairn MCP server', () => {
  withClaude(
    "Claude Code's calls through cairn mcp land in an environment only; .env is hidden, .git refused, replay rebuilds it",
    async () => {
      if ('missing' in claude) throw new Error(claude.missing);
      project = makeCliProject(FILES);
      const p = project;
      execFileSync('git', ['init', '-q'], { cwd: p.root });
      const steps: [string, Record<string, unknown>][] = [
        ['write_file', { path: 'src/new.js', content: 'export const added = 1;\n' }],
        ['edit_file', { path: 'src/a.js', old_text: '"old"', new_text: '"new"' }],
        ['read_file', { path: '.env' }],
        ['run_command', { command: 'echo hi > made.txt; cat .env; echo x > .git/evil' }],
        ['submit_result', { summary: 'renamed the word' }],
      ];
      const server = await startScriptedAnthropic(cairnScript(steps));
      closers.push(() => server.close());

      // the configuration `cairn mcp config claude --write` puts in the project; Claude Code starts the server
      // itself, in its own environment, so the test's private Cairn home is added to it
      const configured = await p.run(['mcp', 'config', 'claude', '--write']);
      expect(configured.stderr).toMatch(/wrote the cairn server into .*\.mcp\.json/);
      const config = join(p.root, '.mcp.json');
      const written = JSON.parse(readFileSync(config, 'utf8')) as { mcpServers: { cairn: { command: string; args: string[] } } };
      expect(written.mcpServers.cairn).toEqual({ command: CAIRN_BIN, args: ['mcp', '--project', p.root], env: {} });
      writeFileSync(
        config,
        JSON.stringify({ mcpServers: { cairn: { ...written.mcpServers.cairn, env: { CAIRN_HOME: p.home, NO_COLOR: '1' } } } }),
      );
      const home = join(p.base, 'claude-home');
      mkdirSync(home, { recursive: true });
      const env = { ...agentCliEnv('claude', { baseUrl: server.baseUrl, home }), ENABLE_TOOL_SEARCH: 'false', MCP_TIMEOUT: '120000' };
      const run = await runAgentCli('claude', {
        path: claude.path,
        prompt: 'rename the word',
        cwd: p.root,
        env,
        timeoutMs: 300_000,
        extraArgs: ['--mcp-config', config, '--strict-mcp-config'],
      });
      expect(run, run.stdout + run.stderr).toMatchObject({ code: 0, timedOut: false });

      // every request to the model offered Cairn's tools, and each step was a turn of its own
      expect(server.turns).toHaveLength(steps.length + 2);
      for (const turn of server.turns) {
        const offered = ((turn.body.tools ?? []) as { name: string }[]).map((tool) => tool.name);
        for (const name of ['environment_open', 'write_file', 'edit_file', 'read_file', 'run_command', 'show_diff', 'submit_result'])
          expect(offered).toContain(`mcp__cairn__${name}`);
      }
      const results = sentResults(server.turns.at(-1)!);
      expect(results).toHaveLength(steps.length + 1);
      const [opened, wrote, edited, readEnv, ran, submitted] = results as [SentResult, ...SentResult[]];
      const id = opened.text.match(/opened environment (\S+) over the project/)?.[1];
      expect(id, opened.text).toBeDefined();
      for (const result of [wrote, edited, submitted]) expect(result!.isError, result!.text).toBe(false);
      // .env is hidden from the table's read and from the command
      expect(readEnv!.isError, readEnv!.text).toBe(true);
      expect(readEnv!.text).toMatch(/excluded/);
      expect(readEnv!.text).not.toContain('hunter2');
      await expectAgentCliProposal(p, id!, ran!.text);
    },
    420_000,
  );

  withClaude(
    'an environment Claude Code leaves without submitting is kept for review once Claude Code exits',
    async () => {
      if ('missing' in claude) throw new Error(claude.missing);
      project = makeCliProject(FILES);
      const p = project;
      const server = await startScriptedAnthropic(cairnScript([['write_file', { path: 'left.txt', content: 'left behind\n' }]]));
      closers.push(() => server.close());
      expect((await p.run(['mcp', 'config', 'claude', '--write'])).code).toBe(0);
      const config = join(p.root, '.mcp.json');
      const written = JSON.parse(readFileSync(config, 'utf8')) as { mcpServers: { cairn: Record<string, unknown> } };
      written.mcpServers.cairn.env = { CAIRN_HOME: p.home, NO_COLOR: '1' };
      writeFileSync(config, JSON.stringify(written));
      const home = join(p.base, 'claude-home');
      mkdirSync(home, { recursive: true });
      const run = await runAgentCli('claude', {
        path: claude.path,
        prompt: 'leave a file',
        cwd: p.root,
        env: { ...agentCliEnv('claude', { baseUrl: server.baseUrl, home }), ENABLE_TOOL_SEARCH: 'false', MCP_TIMEOUT: '120000' },
        timeoutMs: 300_000,
        extraArgs: ['--mcp-config', config, '--strict-mcp-config'],
      });
      expect(run, run.stdout + run.stderr).toMatchObject({ code: 0, timedOut: false });
      const id = sentResults(server.turns.at(-1)!)[0]?.text.match(/opened environment (\S+) over/)?.[1];
      expect(id).toBeDefined();
      // Claude Code ends the server as it exits: the environment is ended with what it made
      await expect
        .poll(async () => resultOf(await p.run(['status', id!, '--json'])).agent as { state: string; summary?: string }, {
          timeout: 60_000,
        })
        .toMatchObject({ state: 'reviewing', summary: expect.stringMatching(/^unsubmitted: /) });
      expect(existsSync(join(p.root, 'left.txt'))).toBe(false);
      expect((await p.run(['diff', id!, '--no-pager'])).stdout).toContain('+left behind');
    },
    420_000,
  );
});
