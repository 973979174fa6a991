import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentCliEnv,
  agentCliForTests,
  type ResponsesCall,
  type ResponsesTurn,
  runAgentCli,
  type ScriptedRequest,
  startScriptedResponses,
} from '@cairn/orchestrator/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_CLI_FILES, expectAgentCliProposal } from './test-support/agent-cli-proposal.js';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const { cli: codex, runs } = agentCliForTests('codex');
const withCodex = runs ? it : it.skip;

let project: CliProject | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  project?.cleanup();
  project = undefined;
});

const FILES = AGENT_CLI_FILES;

// Codex offers an MCP server's tools in a namespace named after the server, found through `tool_search`.
const NAMESPACE = 'mcp__cairn';

/** An item of a request's `input`: what Codex sends back to the model. */
type InputItem = Record<string, unknown>;

function inputOf(request: ScriptedRequest): InputItem[] {
  return (Array.isArray(request.body.input) ? request.body.input : []) as InputItem[];
}

/** The text of a function call's output Codex sent back, whether a string or content parts. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map((part: { text?: string }) => part.text ?? '').join('\n');
  if (typeof output === 'object' && output !== null && 'content' in output) return outputText(output.content);
  return JSON.stringify(output);
}

/** The results of the Cairn calls a request carries, oldest first, with the call each answers. */
function sentResults(request: ScriptedRequest): { name: string; text: string }[] {
  const input = inputOf(request);
  const names = new Map(input.filter((item) => item.type === 'function_call').map((item) => [item.call_id, String(item.name)]));
  return input
    .filter((item) => item.type === 'function_call_output')
    .map((item) => ({ name: names.get(item.call_id) ?? '?', text: outputText(item.output) }));
}

/** The Cairn tools a request's `tool_search` results offered the model, by name. */
function offeredTools(request: ScriptedRequest): string[] {
  return inputOf(request)
    .filter((item) => item.type === 'tool_search_output')
    .flatMap((item) => (item.tools ?? []) as { type: string; name: string; tools?: { name: string }[] }[])
    .filter((tool) => tool.type === 'namespace' && tool.name === NAMESPACE)
    .flatMap((tool) => (tool.tools ?? []).map((inner) => inner.name));
}

/**
 * The scripted model: it searches Codex's deferred tools for Cairn's, opens an environment, then makes one Cairn
 * call a turn with the id the server answered, then says it is done. Each step is the tool's name and its input.
 */
function cairnScript(steps: readonly [string, Record<string, unknown>][]): (request: ScriptedRequest, index: number) => ResponsesTurn {
  let environment: string | undefined;
  const use = (name: string, args: Record<string, unknown>): ResponsesTurn => ({
    calls: [{ type: 'function', namespace: NAMESPACE, name, arguments: args } satisfies ResponsesCall],
  });
  return (request, index) => {
    if (index === 0) return { calls: [{ type: 'tool_search', query: 'cairn environment', limit: 20 }] };
    if (index === 1) return use('environment_open', { task: 'rename the word' });
    if (index === 2) {
      const opened = sentResults(request)
        .at(-1)
        ?.text.match(/opened environment (\S+) over the project/);
      if (opened === null || opened === undefined) return { text: 'environment_open did not answer with an id.' };
      environment = opened[1];
    }
    const step = steps[index - 2];
    return step === undefined ? { text: 'Done.' } : use(step[0], { environment, ...step[1] });
  };
}

/** What Codex printed as it called a tool (`codex exec --json`): the server, the tool, and how the call ended. */
interface McpToolCall {
  server: string;
  tool: string;
  status: string;
  error: unknown;
}

function mcpToolCalls(stdout: string): McpToolCall[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; item?: McpToolCall & { type: string } })
    .filter((event) => event.type === 'item.completed' && event.item?.type === 'mcp_tool_call')
    .map((event) => event.item!);
}

/**
 * Runs Codex in the project with the cairn server configured as `cairn mcp config codex --write` writes it (into
 * the Codex home that holds the scripted provider), plus what the test needs: the server started by Codex gets
 * the test's private Cairn home (Codex passes it only a few of its own variables), and a slow machine gets longer
 * than Codex's 10 s to start it.
 */
async function runCodexWithCairn(p: CliProject, baseUrl: string, prompt: string) {
  if ('missing' in codex) throw new Error(codex.missing);
  const env = agentCliEnv('codex', { baseUrl, home: join(p.base, 'codex-user') });
  const config = join(env.CODEX_HOME!, 'config.toml');
  const configured = await p.run(['mcp', 'config', 'codex', '--write'], { env: { CODEX_HOME: env.CODEX_HOME } });
  expect(configured.code, configured.stdout + configured.stderr).toBe(0);
  expect(configured.stderr).toContain(`wrote the cairn server into ${config}`);
  const written = readFileSync(config, 'utf8');
  expect(written).toContain('[model_providers.local]');
  const table = [
    '[mcp_servers.cairn]',
    `command = ${JSON.stringify(CAIRN_BIN)}`,
    `args = ["mcp", "--project", ${JSON.stringify(p.root)}]`,
    'tool_timeout_sec = 1800',
  ];
  expect(written.endsWith(`\n\n${table.join('\n')}\n`), written).toBe(true);
  appendFileSync(config, `startup_timeout_sec = 120\nenv = { CAIRN_HOME = ${JSON.stringify(p.home)}, NO_COLOR = "1" }\n`);
  const run = await runAgentCli('codex', { path: codex.path, prompt, cwd: p.root, env, timeoutMs: 300_000 });
  expect(run, run.stdout + run.stderr).toMatchObject({ code: 0, timedOut: false });
  return run;
}

describe('Codex with the cairn MCP server', () => {
  withCodex(
    "Codex's calls through cairn mcp land in an environment only; .env is hidden, .git refused, replay rebuilds it",
    async () => {
      project = makeCliProject(FILES);
      const p = project;
      execFileSync('git', ['init', '-q'], { cwd: p.root });
      const steps: [string, Record<string, unknown>][] = [
        ['write_file', { path: 'src/new.js', content: 'export const added = 1;\n' }],
        ['edit_file', { path: 'src/a.js', old_text: '"old"', new_text: '"new"' }],
        ['run_command', { command: 'echo hi > made.txt; cat .env; echo x > .git/evil' }],
        ['submit_result', { summary: 'renamed the word' }],
      ];
      const server = await startScriptedResponses(cairnScript(steps));
      closers.push(() => server.close());

      const run = await runCodexWithCairn(p, server.baseUrl, 'rename the word');
      expect(run.stdout).toContain('"Done."');

      // the first request names Cairn's tools as deferred behind tool_search; the search offered them all, and
      // each step was a turn of its own
      const [first, searched] = server.turns;
      expect(JSON.stringify(first!.body.input)).toContain(`- ${NAMESPACE}: `);
      expect((first!.body.tools as { type: string }[]).map((tool) => tool.type)).toContain('tool_search');
      const offered = offeredTools(searched!);
      for (const name of ['environment_open', 'write_file', 'edit_file', 'read_file', 'run_command', 'show_diff', 'submit_result'])
        expect(offered).toContain(name);
      expect(server.turns).toHaveLength(steps.length + 3);
      const results = sentResults(server.turns.at(-1)!);
      expect(results.map((result) => result.name)).toEqual(['environment_open', ...steps.map(([name]) => name)]);
      const [opened, wrote, edited, ran, submitted] = results as [{ name: string; text: string }, ...{ name: string; text: string }[]];
      const id = opened.text.match(/opened environment (\S+) over the project/)?.[1];
      expect(id, opened.text).toBeDefined();
      expect(wrote!.text).toContain('true');
      expect(edited!.text).toContain('true');
      expect(submitted!.text).toContain('true');
      // Codex counts every call as done, none failed
      const calls = mcpToolCalls(run.stdout);
      expect(calls.map((call) => call.tool)).toEqual(['environment_open', ...steps.map(([name]) => name)]);
      for (const call of calls) expect(call).toMatchObject({ server: 'cairn', status: 'completed', error: null });
      await expectAgentCliProposal(p, id!, ran!.text);
    },
    420_000,
  );
  withCodex(
    'an environment Codex leaves without submitting is kept for review once Codex exits',
    async () => {
      project = makeCliProject(FILES);
      const p = project;
      const server = await startScriptedResponses(cairnScript([['write_file', { path: 'left.txt', content: 'left behind\n' }]]));
      closers.push(() => server.close());
      await runCodexWithCairn(p, server.baseUrl, 'leave a file');
      const id = sentResults(server.turns.at(-1)!)[0]?.text.match(/opened environment (\S+) over/)?.[1];
      expect(id).toBeDefined();
      // Codex stops the server as it exits (SIGTERM to its process group, SIGKILL soon after, stdin left open):
      // the next cairn command finds the environment stopped and sends what it made to review
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
