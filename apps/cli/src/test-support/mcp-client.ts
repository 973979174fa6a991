import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CliProject } from './run-cairn.js';
import { CAIRN_BIN } from './run-cairn.js';

/** A tool call's answer as a test reads it: its text, and whether it is an error. */
export interface McpAnswer {
  text: string;
  isError: boolean;
}

/** The official MCP client, connected to the real `cairn mcp` of a test project over stdio. */
export interface McpSession {
  client: Client;
  /** The server's process id. */
  pid: number | null;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  call(name: string, args?: Record<string, unknown>, options?: Parameters<Client['callTool']>[2]): Promise<McpAnswer>;
  /** Opens an environment and returns its id. */
  open(task: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts `cairn mcp --project ROOT` as the client's child and connects to it. */
export async function connectMcp(project: CliProject, options: { name?: string; env?: Record<string, string> } = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CAIRN_BIN, 'mcp', '--project', project.root],
    env: {
      ...(process.env as Record<string, string>),
      CAIRN_HOME: project.home,
      NO_COLOR: '1',
      OLLAMA_HOST: 'http://127.0.0.1:9',
      ...options.env,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: options.name ?? 'cairn-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}, callOptions?: Parameters<Client['callTool']>[2]) => {
    const result = (await client.callTool({ name, arguments: args }, undefined, callOptions)) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    return { text, isError: result.isError === true };
  };
  return {
    client,
    pid: transport.pid,
    stderr: () => stderr,
    call,
    open: async (task) => {
      const opened = await call('environment_open', { task });
      const id = /opened environment (\S+) over/.exec(opened.text)?.[1];
      if (opened.isError || id === undefined) throw new Error(`environment_open failed: ${opened.text}\n${stderr}`);
      return id;
    },
    close: () => client.close(),
  };
}
