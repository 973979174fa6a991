import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CairnError } from '@cairn/orchestrator';

/** The MCP clients `cairn mcp config` knows. */
export const MCP_CLIENTS = ['claude', 'codex', 'gemini', 'cursor'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** A client's configuration for the server: the file it reads it from, and the text to put there. */
export interface ClientConfig {
  client: McpClient;
  file: string;
  /** The whole file's text with the server added (other servers and settings kept), or the block to add. */
  text: string;
  /** How the client is told of a long call: its own tool timeout, raised here where its configuration allows. */
  note: string;
}

/** How a client starts the server: this `cairn` and its arguments. */
export interface ServerLaunch {
  command: string;
  args: string[];
}

/** Long enough for a test suite run through `run_command` (s). */
const TOOL_TIMEOUT_SECONDS = 1800;

/**
 * The configuration of `client` for a server launched as `launch` in the project at `root`: Claude Code's
 * `.mcp.json`, Gemini CLI's `.gemini/settings.json` and Cursor's `.cursor/mcp.json` in the project (merged into
 * what is there), and Codex's `config.toml` in its home (a `[mcp_servers.cairn]` table). A file Cairn cannot
 * read as its format is refused, never overwritten.
 */
export function clientConfig(client: McpClient, root: string, launch: ServerLaunch): ClientConfig {
  const server = { command: launch.command, args: launch.args };
  switch (client) {
    case 'claude':
      return jsonConfig(
        client,
        join(root, '.mcp.json'),
        { ...server, env: {} },
        'Claude Code waits for a tool call as long as MCP_TOOL_TIMEOUT says (ms); Cairn sends progress while a call runs',
      );
    case 'gemini':
      return jsonConfig(
        client,
        join(root, '.gemini', 'settings.json'),
        { ...server, timeout: TOOL_TIMEOUT_SECONDS * 1000 },
        `Gemini CLI waits ${TOOL_TIMEOUT_SECONDS} s for a call (timeout)`,
      );
    case 'cursor':
      return jsonConfig(
        client,
        join(root, '.cursor', 'mcp.json'),
        server,
        'a call Cursor stops waiting for goes on: the `wait` tool takes up its result',
      );
    case 'codex':
      return codexConfig(launch);
  }
}

/** Writes the configuration to its file. */
export function writeClientConfig(config: ClientConfig): void {
  mkdirSync(dirname(config.file), { recursive: true });
  if (config.client === 'codex') {
    const before = existsSync(config.file) ? readFileSync(config.file, 'utf8') : '';
    writeFileSync(config.file, `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${before === '' ? '' : '\n'}${config.text}`);
  } else writeFileSync(config.file, config.text);
}

function jsonConfig(client: McpClient, file: string, entry: Record<string, unknown>, note: string): ClientConfig {
  let settings: Record<string, unknown> = {};
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    try {
      const parsed = JSON.parse(text === '' ? '{}' : text) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
      settings = parsed as Record<string, unknown>;
    } catch (error) {
      throw new CairnError('CAIRN_CONFIG', `${file} is not a JSON object Cairn can add to (${(error as Error).message})`, {
        hint: 'fix the file, or add the server by hand (cairn mcp config without --write prints it)',
      });
    }
  }
  const servers = (typeof settings.mcpServers === 'object' && settings.mcpServers !== null ? settings.mcpServers : {}) as Record<
    string,
    unknown
  >;
  const text = `${JSON.stringify({ ...settings, mcpServers: { ...servers, cairn: entry } }, null, 2)}\n`;
  return { client, file, text, note };
}

function codexConfig(launch: ServerLaunch): ClientConfig {
  const home = process.env.CODEX_HOME ?? join(homedir(), '.codex');
  const file = join(home, 'config.toml');
  if (existsSync(file) && /^\[mcp_servers\.cairn\]/m.test(readFileSync(file, 'utf8')))
    throw new CairnError('CAIRN_CONFIG', `${file} already has an [mcp_servers.cairn] table`, {
      hint: "change it by hand: Cairn does not rewrite Codex's settings (cairn mcp config codex prints the table)",
    });
  const text = [
    '[mcp_servers.cairn]',
    `command = ${JSON.stringify(launch.command)}`,
    `args = [${launch.args.map((arg) => JSON.stringify(arg)).join(', ')}]`,
    `tool_timeout_sec = ${TOOL_TIMEOUT_SECONDS}`,
    '',
  ].join('\n');
  return { client: 'codex', file, text, note: `Codex waits ${TOOL_TIMEOUT_SECONDS} s for a call (tool_timeout_sec)` };
}
