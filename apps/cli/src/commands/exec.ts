import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { relative } from 'node:path';
import { type AgentInfo, type CairnEvent, type ExecSpec, projectLayout, SETTLED_STATES } from '@cairn/daemon/client';
import type { Project } from '@cairn/orchestrator';
import { type CommandContext, UsageError } from '../context.js';
import { forwardToDaemon } from '../daemon-forward.js';
import { followChecks } from '../follow-checks.js';
import { changedFilesInWords } from '../render/changed-files.js';
import { describeEvent } from '../render/events.js';
import { type SpawnFlags, spawnOptionsOf } from '../spawn-flags.js';

/** Flags of `spawn --exec` and `run`. */
export interface ExecFlags extends SpawnFlags {
  exec?: boolean;
  sync?: boolean;
  env?: string[];
  home?: string[];
}

const SETTLED = new Set<string>(SETTLED_STATES);

/**
 * `cairn spawn --exec -- CMD ARGS…`: a new agent whose work is a program (an agent CLI) run in a writable
 * sealed view of the project. It runs in this process, attached to this terminal when there is one, whether or
 * not a daemon runs: its environment and terminal are here. What it writes becomes a governed proposal.
 */
export async function execSpawnCommand(ctx: CommandContext, words: readonly string[], flags: ExecFlags): Promise<number> {
  const exec = execSpecOf(ctx, words, flags);
  const options = { ...spawnOptionsOf(flags, ctx.root), exec };
  // an agent CLI's wall limit is its whole run in the view
  if (options.limits?.wallMs !== undefined) options.budgets = { ...options.budgets, wallMs: options.limits.wallMs };
  return withProject(ctx, async (project) => {
    const agent = await project.spawn(exec.command.join(' '), options);
    ctx.out.note(`spawned ${ctx.out.paint.bold(agent.id)} (${agent.kind}): ${agent.task}`);
    return agent;
  });
}

/**
 * `cairn run ID -- CMD`: runs a command again in a reviewing agent's view, over its proposal so far.
 * `cairn run ID --sync`: takes what the agent's command has written so far into its overlay now.
 */
export async function runAgainCommand(ctx: CommandContext, id: string, words: readonly string[], flags: ExecFlags): Promise<number> {
  if (flags.sync === true) return syncCommand(ctx, id, words);
  const exec = execSpecOf(ctx, words, flags);
  return withProject(ctx, async (project) => {
    const agent = await project.runAgain(id, exec);
    ctx.out.note(`running ${exec.command.join(' ')} in ${ctx.out.paint.bold(agent.id)}, over its proposal so far`);
    return agent;
  });
}

async function syncCommand(ctx: CommandContext, id: string, words: readonly string[]): Promise<number> {
  if (words.length > 0) throw new UsageError('--sync takes no command: it syncs the one that runs', `cairn run ${id} --sync`);
  const { openProject } = await import('@cairn/orchestrator/project');
  const project = openProject(projectLayout(ctx.root).root, { queue: 'none' });
  try {
    const answer = await project.syncRun(id);
    const agent = await project.agent(id);
    ctx.out.line(`${ctx.out.paint.bold(id)}: ${answer}`);
    ctx.out.result(true, { agent, sync: answer });
    return 0;
  } finally {
    await project.close();
  }
}

function execSpecOf(ctx: CommandContext, words: readonly string[], flags: ExecFlags): ExecSpec {
  if (words.length === 0)
    throw new UsageError(
      'no command to run: give it after --',
      'cairn spawn --exec --env ANTHROPIC_API_KEY -- claude "fix the failing test"',
    );
  const cwd = relative(projectLayout(ctx.root).root, process.cwd());
  return {
    command: [...words],
    env: [...(flags.env ?? []), ...configured(ctx.root, 'env')],
    // `--home ~/.claude` reaches Cairn as the shell expanded it
    home: [...(flags.home ?? []), ...configured(ctx.root, 'home')].map((entry) =>
      entry.startsWith(`${homedir()}/`) ? entry.slice(homedir().length + 1) : entry,
    ),
    ...(cwd === '' || cwd.startsWith('..') ? {} : { cwd }),
  };
}

/** What `.cairn/config.json` gives every agent CLI (`"exec": { "env": ["ANTHROPIC_API_KEY"], "home": [".claude"] }`). */
function configured(root: string, key: 'env' | 'home'): string[] {
  try {
    const text = readFileSync(projectLayout(root).configPath, 'utf8');
    const list = (JSON.parse(text) as { exec?: Record<string, unknown> }).exec?.[key];
    return Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Opens the project in this process (never the daemon's: the command needs this terminal and environment),
 * starts the agent, waits for it to settle, then runs its checks. Ctrl-C reaches the agent's command, which
 * ends; what it wrote so far becomes the proposal, marked interrupted. A second Ctrl-C leaves at once.
 */
async function withProject(ctx: CommandContext, start: (project: Project) => Promise<AgentInfo>): Promise<number> {
  const { out } = ctx;
  const { openProject } = await import('@cairn/orchestrator/project');
  const project = openProject(projectLayout(ctx.root).root, { queue: 'own' });
  let interrupts = 0;
  const running = { started: false };
  const onInterrupt = () => {
    interrupts++;
    // before the command starts there is nothing to keep: leave at once (the next command records the agent interrupted)
    if (!running.started || interrupts > 1) {
      if (!running.started) out.note('interrupted before the command ran: nothing was written');
      process.exit(130);
    }
    out.note('interrupted: the command stops; what it wrote so far becomes the proposal (Ctrl-C again leaves at once)');
  };
  process.on('SIGINT', onInterrupt);
  try {
    project.prepareToRun();
    await project.sync();
    const forward = await forwardToDaemon(projectLayout(ctx.root));
    const agent = { id: '' };
    const stream = tapped(await project.subscribe(), (event) => forward(event, agent.id));
    try {
      const started = await start(project);
      agent.id = started.id;
      const settled = await follow(ctx, project, stream, started.id, running);
      printSettled(ctx, settled);
      if (settled.state === 'reviewing') await followChecks(out, project, stream, 'the agent ran in this process');
      const final = await project.agent(started.id);
      out.result(final.state !== 'failed', { agent: final });
      return final.state === 'failed' ? 1 : 0;
    } finally {
      await stream.return?.();
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    await project.close();
  }
}

async function follow(
  ctx: CommandContext,
  project: Project,
  stream: AsyncIterator<CairnEvent>,
  id: string,
  running: { started: boolean },
): Promise<AgentInfo> {
  for (let next = await stream.next(); next.done !== true; next = await stream.next()) {
    const event = next.value;
    if (!('agentId' in event) || event.agentId !== id) continue;
    if (event.type === 'agent.log' && event.message.startsWith('running ')) running.started = true;
    ctx.out.event(event);
    if (event.type === 'agent.denied' || event.type === 'error') ctx.out.note(`  ${describeEvent(event, ctx.out.paint)}`);
    if (event.type === 'agent.submitted' || event.type === 'agent.failed' || event.type === 'agent.rejected') break;
    if (event.type === 'error' && SETTLED.has((await project.agent(id)).state)) break;
  }
  return project.agent(id);
}

/** The stream, with each event also given to `see` as it is read. */
function tapped(stream: AsyncIterator<CairnEvent>, see: (event: CairnEvent) => void): AsyncIterator<CairnEvent> {
  return {
    next: async () => {
      const next = await stream.next();
      if (next.done !== true) see(next.value);
      return next;
    },
    return: async () => (await stream.return?.()) ?? { done: true, value: undefined },
  };
}

function printSettled(ctx: CommandContext, agent: AgentInfo): void {
  const { out } = ctx;
  if (agent.state === 'failed') {
    out.line(`${out.paint.bold(agent.id)} ${out.paint.red('failed')}: ${agent.failure?.message ?? agent.reason ?? ''}`);
    if (agent.failure?.hint !== undefined) out.line(`  ${agent.failure.hint}`);
    return;
  }
  out.line(`${out.paint.bold(agent.id)} is ${agent.state}: ${agent.summary ?? ''}`);
  const files = changedFilesInWords(agent.changes ?? []);
  if (files !== '') out.line(`  ${files}`);
  out.line(out.paint.dim(`  cairn diff ${agent.id} · cairn log ${agent.id} · cairn accept ${agent.id}`));
}
