import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bufferLines, cairnMarks, messages, screenText } from './test-support/inspect.js';
import { describeInNeovims, type EmbeddedNvim, startNvim, until } from './test-support/nvim.js';
import { type DaemonProject, startDaemonProject } from './test-support/project.js';

const CAIRN = fileURLToPath(new URL('../../cli/bin/cairn.mjs', import.meta.url));
const A = ['export function a() {', "  return 'a';", '}', ''].join('\n');
const BYE = "export const bye = () => 'bye';";

/** An MCP client (the official SDK) of the project's real `cairn mcp`, which runs its environments in its own process. */
interface McpSession {
  call(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  stderr(): string;
  close(): Promise<void>;
}

async function connectMcp(project: DaemonProject): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CAIRN, 'mcp', '--project', project.root],
    env: { ...(process.env as Record<string, string>), CAIRN_HOME: project.home, NO_COLOR: '1', OLLAMA_HOST: 'http://127.0.0.1:9' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'nvim-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    async call(name, args) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      return { text, isError: result.isError === true };
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}

describeInNeovims('an MCP environment in Neovim', (binary) => {
  let project: DaemonProject;
  let vim: EmbeddedNvim;
  let mcp: McpSession | undefined;
  let stopStream: (() => void) | undefined;

  beforeEach(async () => {
    project = await startDaemonProject({ 'src/a.js': A });
    vim = await startNvim(binary, project.root, project.env);
    await vim.nvim.command('edit src/a.js');
    await until('the bridge to reach the daemon', async () =>
      (await vim.lua<boolean>("return require('cairn').daemon_up()")) ? true : undefined,
    );
  });

  afterEach(async () => {
    stopStream?.();
    stopStream = undefined;
    await mcp?.close();
    mcp = undefined;
    await vim?.quit();
    await project?.close();
  });

  it('shows the proposal of an environment run by `cairn mcp` as ghost text, and <Leader>a writes it', async () => {
    // The server starts after the daemon, so it finds it and tells it its environments' events.
    mcp = await connectMcp(project);
    const session = mcp;
    const ask = async (name: string, args: Record<string, unknown>) => {
      const answer = await session.call(name, args);
      expect(answer.isError, `${name}: ${answer.text}\n${session.stderr()}`).toBe(false);
      return answer.text;
    };
    // Everything the daemon tells its listeners (the bridge among them) until a proposal is submitted.
    const stream = await project.client.subscribe({ until: (event) => event.type === 'agent.submitted' });
    stopStream = () => void stream.return?.();
    const told: string[] = [];
    let submitted = false;
    void (async () => {
      for (let next = await stream.next(); !next.done; next = await stream.next())
        told.push(`${next.value.type} ${'agentId' in next.value ? next.value.agentId : ''}`);
      submitted = true;
    })().catch(() => undefined);

    const opened = await ask('environment_open', { task: 'add bye' });
    const id = /opened environment (\S+) over/.exec(opened)?.[1];
    expect(id, opened).toBeDefined();
    await ask('edit_file', { environment: id, path: 'src/a.js', old_text: '}\n', new_text: `}\n\n${BYE}\n` });
    await ask('submit_result', { environment: id, summary: 'a bye beside a' });

    // The environment ran in the server's process: the daemon tells of it only what the server forwarded.
    await until('the daemon to relay the submission', async () => (submitted ? true : undefined));
    expect(told).toEqual(expect.arrayContaining([`agent.started ${id}`, `agent.submitted ${id}`]));
    const marks = await until('ghost text', async () => {
      const m = await cairnMarks(vim);
      return m.some((x) => x.virtLines.some((l) => l.includes(BYE))) ? m : undefined;
    });
    const summary = marks.find((m) => m.virtText.includes(`cairn ${id}`))?.virtText;
    expect(summary).toContain('add bye');
    expect((await screenText(vim)).join('\n')).toContain(BYE);
    expect(await bufferLines(vim)).toEqual(A.split('\n').slice(0, -1));
    expect(project.read('src/a.js')).toBe(A);
    const agent = await project.client.agent(id!);
    expect(agent.state).toBe('reviewing');
    expect(agent.kind).toBe('mcp:nvim-test');

    await vim.nvim.input('\\a');
    await until('the file on disk', async () => (project.read('src/a.js').includes(BYE) ? true : undefined));
    await until('the buffer reloaded', async () => ((await bufferLines(vim)).includes(BYE) ? true : undefined));
    await until('the ghost text gone', async () => ((await cairnMarks(vim)).length === 0 ? true : undefined));
    expect((await project.client.agent(id!)).state).toBe('accepted');
    expect(await messages(vim)).toContain(`accepted ${id}`);
  });
});
