import { type AgentInfo, type AgentState, type CairnEvent, SETTLED_STATES } from '@cairn/daemon/client';
import { connect } from '../connect.js';
import { type CommandContext, taskOf } from '../context.js';
import { followChecks } from '../follow-checks.js';
import { changedFilesInWords } from '../render/changed-files.js';
import { describeEvent } from '../render/events.js';
import { noteSkipped } from '../render/skipped.js';
import { type SpawnFlags, spawnOptionsOf } from '../spawn-flags.js';

/** Flags of `spawn` and `queue`. */
export interface SpawnCommandFlags extends SpawnFlags {
  wait?: boolean;
}

/** The events after which an agent has settled. */
const SETTLED = new Set(['agent.submitted', 'agent.failed', 'agent.rejected']);
const SETTLED_STATE_SET = new Set<AgentState>(SETTLED_STATES);

/**
 * `cairn spawn` / `cairn queue`: creates the agent and prints its id at once. With a daemon the agent runs
 * there; `--wait` follows its events until it submits or fails, and says which checks run on there. Without a
 * daemon, `spawn` runs the agent in this process (it stays until the agent is done, as it would be interrupted
 * otherwise), then the checks its proposal started, showing each as it finishes; `queue` only records the agent
 * for `cairn up` to run.
 */
export async function spawnCommand(
  ctx: CommandContext,
  words: readonly string[],
  flags: SpawnCommandFlags,
  mode: 'spawn' | 'queue',
): Promise<number> {
  const { out } = ctx;
  const task = taskOf(words);
  const options = spawnOptionsOf(flags, ctx.root);
  const conn = await connect(ctx.root, { runs: mode === 'spawn', sync: true });
  try {
    if (conn.synced !== undefined) noteSkipped(out, conn.synced);
    const runsHere = !conn.daemon && mode === 'spawn';
    const follow = flags.wait === true && (conn.daemon || runsHere);
    const stream = follow || runsHere ? await conn.api.subscribe() : undefined;
    const agent = mode === 'spawn' ? await conn.api.spawn(task, options) : await conn.api.queue(task, options);
    out.line(`${mode === 'spawn' ? 'spawned' : 'queued'} ${out.paint.bold(agent.id)}: ${agent.task}`);
    if (stream === undefined) {
      if (!conn.daemon) out.note(out.paint.dim('no daemon runs: queued agents run once `cairn up` starts'));
      out.result(true, { agent });
      return 0;
    }
    let checking = false;
    const leave = () => {
      if (!checking || conn.project === undefined) {
        out.note(interruptedNote(agent.id, conn.daemon));
        process.exit(130);
      }
      // the agent is done: only the checks stop, their results left stale for a later run
      void conn.project
        .stopChecks()
        .catch(() => undefined)
        .finally(() => {
          out.note(
            `interrupted: the checks stopped (their results are stale); ${agent.id} is reviewing — \`cairn checks ${agent.id} --run\` runs them again`,
          );
          process.exit(130);
        });
    };
    process.once('SIGINT', leave);
    try {
      const { agent: settled, waiting } = await followAgent(ctx, conn.api.agent.bind(conn.api), stream, agent, follow);
      if (waiting !== undefined) return stillQueued(ctx, settled, waiting);
      const code = finish(ctx, settled);
      if (conn.project !== undefined && runsHere && settled.state === 'reviewing') {
        checking = true;
        await followChecks(out, conn.project, stream);
      } else if (conn.daemon) noteChecksRunOn(ctx, settled);
      const final = await conn.api.agent(agent.id);
      out.result(final.state !== 'failed', { agent: final });
      return code;
    } finally {
      await stream.return?.();
      process.off('SIGINT', leave);
    }
  } finally {
    await conn.close();
  }
}

/** What Ctrl-C leaves of an agent `cairn spawn` was following or running. */
function interruptedNote(id: string, daemon: boolean): string {
  return daemon
    ? `stopped following ${id}; it runs on in the daemon: \`cairn status ${id}\` shows where it stands`
    : `interrupted: ${id} ran in this command and stops with it; the next cairn command records it as failed (interrupted)`;
}

/** A queued agent no trusted worker takes, as the coordinator said it (`agent.waiting`). */
type Waiting = Extract<CairnEvent, { type: 'agent.waiting' }>;

/**
 * Follows one agent's events until it settles, printing progress (when asked) and passing events to JSON output;
 * it stops following an agent left queued because no trusted worker takes it (`waiting`). The stream is left open.
 */
async function followAgent(
  ctx: CommandContext,
  fetch: (id: string) => Promise<AgentInfo>,
  stream: AsyncIterator<CairnEvent>,
  agent: AgentInfo,
  show: boolean,
): Promise<{ agent: AgentInfo; waiting?: Waiting }> {
  const { out } = ctx;
  let waiting: Waiting | undefined;
  const current = await fetch(agent.id);
  if (SETTLED_STATE_SET.has(current.state)) return { agent: current };
  for (let next = await stream.next(); next.done !== true; next = await stream.next()) {
    const event = next.value;
    if (!('agentId' in event) || event.agentId !== agent.id) continue;
    out.event(event);
    if ((show && event.type !== 'agent.queued') || event.type === 'error') out.note(`  ${describeEvent(event, out.paint)}`);
    if (SETTLED.has(event.type)) break;
    // nothing waits for ever: an agent left queued for want of a worker is said, not waited for
    if (event.type === 'agent.waiting' && event.then === 'wait') {
      waiting = event;
      break;
    }
    // an error of Cairn's own may come instead of the event that settles the agent: ask where it stands
    if (event.type === 'error' && SETTLED_STATE_SET.has((await fetch(agent.id)).state)) break;
  }
  const final = await fetch(agent.id);
  return waiting === undefined || final.state !== 'queued' ? { agent: final } : { agent: final, waiting };
}

/** With a daemon, the checks of a proposal run on there after `spawn --wait` returns: which, and where to look. */
function noteChecksRunOn(ctx: CommandContext, agent: AgentInfo): void {
  const running = (agent.checks ?? []).filter((check) => check.status === 'pending').map((check) => check.name);
  if (running.length > 0)
    ctx.out.line(ctx.out.paint.dim(`  checks ${running.join(', ')} run on in the daemon: \`cairn checks ${agent.id}\` shows them`));
}

/** An agent left queued for want of a worker: why, what to do, and exit 1. */
function stillQueued(ctx: CommandContext, agent: AgentInfo, waiting: Waiting): number {
  const { out } = ctx;
  out.result(false, { agent, waiting: { reason: waiting.reason, hint: waiting.hint } });
  out.line(`${out.paint.bold(agent.id)} is ${out.paint.yellow('still queued')}: ${waiting.reason}`);
  out.line(out.paint.dim(`  hint: ${waiting.hint}`));
  out.line(out.paint.dim(`  it stays queued, and runs when a worker takes it: \`cairn status ${agent.id}\` shows where it stands`));
  return 1;
}

/** The agent's outcome in words (its JSON result comes once its checks are followed); the exit code. */
function finish(ctx: CommandContext, agent: AgentInfo): number {
  const { out } = ctx;
  if (agent.state === 'reviewing') {
    out.line(
      `${out.paint.bold(agent.id)} is ${out.paint.yellow('reviewing')}: ${agent.summary ?? ''} (${changedFilesInWords(agent.changes ?? [])})`,
    );
    out.line(out.paint.dim(`  see it with \`cairn diff ${agent.id}\`, then \`cairn accept ${agent.id}\` or \`cairn reject ${agent.id}\``));
    return 0;
  }
  if (agent.state === 'failed') {
    out.line(`${out.paint.bold(agent.id)} ${out.paint.red('failed')}: ${agent.failure?.message ?? agent.reason ?? ''}`);
    if (agent.failure?.hint !== undefined) out.line(out.paint.dim(`  hint: ${agent.failure.hint}`));
    return 1;
  }
  out.line(`${out.paint.bold(agent.id)} is ${agent.state}`);
  return 0;
}
