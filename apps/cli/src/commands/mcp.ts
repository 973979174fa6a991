import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadCheckSettings } from '@cairn/checks';
import { type CairnEvent, projectLayout } from '@cairn/daemon/client';
import { type CommandContext, UsageError } from '../context.js';
import { forwardWhileDaemonRuns } from '../daemon-forward.js';

/**
 * `cairn mcp`: an MCP server on stdin and stdout for the project, until the client leaves (or a signal). Its
 * environments are agents run in this process, whether or not a daemon runs; with one up, their events reach
 * its listeners (Neovim, `cairn events`). Nothing but JSON-RPC goes to stdout; notes go to stderr.
 */
export async function mcpCommand(ctx: CommandContext): Promise<number> {
  const { openProject } = await import('@cairn/orchestrator/project');
  const { serveMcp } = await import('@cairn/mcp');
  const layout = projectLayout(ctx.root);
  const project = openProject(layout.root, { queue: 'own' });
  project.prepareToRun();
  const ids = new Set<string>();
  const forward = forwardWhileDaemonRuns(layout);
  const events = project.events();
  void (async () => {
    for await (const event of events as AsyncIterable<CairnEvent>) {
      const id = 'agentId' in event ? event.agentId : undefined;
      if (id !== undefined && ids.has(id)) forward(event, id);
    }
  })();
  // edits saved while the server runs reach stable.db within milliseconds, so a new environment opens over them
  const watcher = project.watch();
  const holdMs = Number(process.env.CAIRN_MCP_HOLD_MS);
  const { closed } = await serveMcp({
    project,
    checks: () => loadCheckSettings(layout.configPath).map((check) => check.name),
    input: process.stdin,
    output: process.stdout,
    ...(Number.isFinite(holdMs) && holdMs > 0 ? { holdMs } : {}),
    ready: watcher.ready,
    onEnvironment: (id) => ids.add(id),
  });
  ctx.out.note(`cairn mcp: serving ${layout.root} on stdio`);
  const stop = () => process.stdin.destroy();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await closed;
  } finally {
    await watcher.close();
    await project.close();
  }
  return 0;
}

/**
 * `cairn mcp config <client> [--write]`: prints the client's configuration for this project's server, or writes
 * it into the client's file (merged with what is there), and says which it did.
 */
export async function mcpConfigCommand(ctx: CommandContext, client: string, flags: { write?: boolean }): Promise<number> {
  const { clientConfig, MCP_CLIENTS, writeClientConfig } = await import('@cairn/mcp');
  if (!(MCP_CLIENTS as readonly string[]).includes(client))
    throw new UsageError(`unknown MCP client "${client}" (one of ${MCP_CLIENTS.join(', ')})`, 'cairn mcp config claude --write');
  const root = projectLayout(ctx.root).root;
  const config = clientConfig(client as (typeof MCP_CLIENTS)[number], root, launchOf(root));
  if (flags.write === true) {
    writeClientConfig(config);
    ctx.out.note(`wrote the cairn server into ${config.file} (${config.note})`);
  } else {
    ctx.out.line(config.text.trimEnd());
    ctx.out.note(
      `printed ${client}'s configuration; it belongs in ${config.file} (cairn mcp config ${client} --write puts it there). ${config.note}`,
    );
  }
  ctx.out.result(true, { client, file: config.file, written: flags.write === true, text: config.text });
  return 0;
}

/** How a client starts this `cairn`: its launcher by absolute path, for the project at `root`. */
function launchOf(root: string): { command: string; args: string[] } {
  const bin = process.argv[1] === undefined ? undefined : resolve(process.argv[1]);
  const command = bin !== undefined && existsSync(bin) && /cairn(\.mjs)?$/.test(bin) ? bin : 'cairn';
  return { command, args: ['mcp', '--project', root] };
}
