import type { CairnApi, CairnEvent } from '@cairn/daemon/client';
import { splitAcceptWords } from '../accept-arguments.js';
import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import type { Output } from '../output.js';
import { projectPathsOf } from '../path-argument.js';
import { renderAccept, renderUndo } from '../render/accept.js';
import { itemOf, renderAcceptQueue } from '../render/accept-queue.js';
import { describeEvent } from '../render/events.js';

/** Flags of `cairn accept`. */
export interface AcceptFlags {
  force?: boolean;
  partial?: boolean;
  keepGoing?: boolean;
}

/**
 * `cairn accept <id> [more…] [--force] [--partial] [--keep-going]`: three-way accept, all or nothing unless
 * `--partial`, of one agent (or some of its paths), or of several agents in turn through the project's accept
 * queue; each waits for its automatic checks while they run. Exit 1 when one did not go in.
 */
export async function acceptCommand(
  ctx: CommandContext,
  id: string,
  more: readonly string[],
  flags: AcceptFlags,
  afterDash = 0,
): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const known = more.length === 0 ? new Set<string>() : new Set((await conn.api.agents()).map((agent) => agent.id));
    const { ids, paths } = splitAcceptWords([id, ...more], afterDash, known, ctx.root);
    // paths as git reads them: from the current folder
    const selected = projectPathsOf(ctx.root, paths);
    const force = flags.force === true;
    const partial = flags.partial === true;
    const progress = await followAccepts(conn.api, ids, ctx.out);
    if (ids.length === 1) {
      const outcome = await progress.until(
        conn.api.accept(id, { ...(selected === undefined ? {} : { paths: selected }), force, partial }),
        () => [id],
      );
      ctx.out.result(outcome.ok, {
        applied: outcome.applied,
        conflicts: outcome.conflicts,
        agent: outcome.agent,
        accepts: [itemOf(outcome)],
      });
      for (const line of renderAccept(outcome, ctx.out.paint, { paths, force, partial })) ctx.out.line(line);
      return outcome.ok ? 0 : 1;
    }
    const outcome = await progress.until(conn.api.acceptMany(ids, { force, partial, keepGoing: flags.keepGoing === true }), (many) =>
      many.accepts.filter((item) => item.status === 'accepted' || item.status === 'conflict').map((item) => item.id),
    );
    ctx.out.result(outcome.ok, { accepts: outcome.accepts });
    for (const line of renderAcceptQueue(outcome, ctx.out.paint, { force, partial })) ctx.out.line(line);
    return outcome.ok ? 0 : 1;
  } finally {
    await conn.close();
  }
}

/** Events that tell how the accepts of `ids` come along: waits, and their checks as they run. */
const PROGRESS = new Set<CairnEvent['type']>(['accept.waiting', 'check.started', 'check.finished']);

/** How long the events of accepts that are done may take to arrive after the answer (a daemon sends both). */
const DRAIN_MS = 2000;

/** Follows accepts while they run; `until` resolves with the work's result once the events before it were shown. */
interface AcceptProgress {
  until<T>(work: Promise<T>, accepted: (result: T) => readonly string[]): Promise<T>;
}

/**
 * Follows the accepts of `ids`: each wait and check as a line on stderr (an event in `--json`, with the
 * `agent.accepted` that ends each one that wrote), so a long wait is seen as one. A daemon answers on another
 * connection than its events, so the events of the accepts that went in are waited for (a moment at most).
 */
async function followAccepts(api: CairnApi, ids: readonly string[], out: Output): Promise<AcceptProgress> {
  const stream = await api.subscribe();
  const wanted = new Set(ids);
  const ended = new Set<string>();
  let wake: (() => void) | undefined;
  let stopped = false;
  const shown = (async () => {
    for (let next = await stream.next(); next.done !== true && !stopped; next = await stream.next()) {
      const event = next.value;
      if (!('agentId' in event) || event.agentId === undefined || !wanted.has(event.agentId)) continue;
      if (event.type === 'agent.accepted') {
        out.event(event);
        ended.add(event.agentId);
        wake?.();
      } else if (PROGRESS.has(event.type)) {
        out.event(event);
        out.note(describeEvent(event, out.paint));
      }
    }
  })()
    .catch(() => undefined)
    .finally(() => wake?.());
  return {
    async until(work, accepted) {
      try {
        const result = await work;
        const owed = accepted(result);
        const deadline = Date.now() + DRAIN_MS;
        while (!stopped && owed.some((id) => !ended.has(id)) && Date.now() < deadline) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, deadline - Date.now()).unref();
          });
        }
        return result;
      } finally {
        stopped = true;
        await stream.return?.();
        await shown;
      }
    },
  };
}

/** `cairn undo <id> [--force]`: undoes the agent's accepts; exit 1 when a file changed since was left alone. */
export async function undoCommand(ctx: CommandContext, id: string, flags: { force?: boolean }): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const outcome = await conn.api.undo(id, { force: flags.force === true });
    ctx.out.result(outcome.ok, { restored: outcome.restored, conflicts: outcome.conflicts, agent: outcome.agent });
    for (const line of renderUndo(outcome, ctx.out.paint)) ctx.out.line(line);
    return outcome.ok ? 0 : 1;
  } finally {
    await conn.close();
  }
}

/** `cairn reject <id> [--reason TEXT]`: retires the overlay to the ledger (restorable). */
export async function rejectCommand(ctx: CommandContext, id: string, flags: { reason?: string }): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const agent = await conn.api.reject(id, flags.reason);
    ctx.out.result(true, { agent });
    ctx.out.line(
      // the reason the user gave (the ledger records "rejected" when none was)
      `rejected ${ctx.out.paint.bold(id)}${flags.reason?.trim() ? `: ${agent.reason}` : ''} ${ctx.out.paint.dim(`(bring it back with \`cairn restore ${id}\`)`)}`,
    );
    return 0;
  } finally {
    await conn.close();
  }
}

/** `cairn restore <id>`: brings a rejected agent back. */
export async function restoreCommand(ctx: CommandContext, id: string): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const agent = await conn.api.restore(id);
    ctx.out.result(true, { agent });
    ctx.out.line(`restored ${ctx.out.paint.bold(id)}: it is ${agent.state} again`);
    return 0;
  } finally {
    await conn.close();
  }
}

/** `cairn replay <id>`: re-runs the agent from its journal; exit 0 only if it is reproduced. */
export async function replayCommand(ctx: CommandContext, id: string): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const outcome = await conn.api.replay(id);
    ctx.out.result(outcome.ok, { replay: outcome });
    const { paint } = ctx.out;
    if (outcome.ok) {
      ctx.out.line(
        `${paint.green('reproduced')}: ${outcome.runs} run${outcome.runs === 1 ? '' : 's'}, ${outcome.entries} journal entries equal, changes ${outcome.changesHash.slice(0, 19)}…`,
      );
      return 0;
    }
    ctx.out.line(`${paint.red('not reproduced')}: ${outcome.divergence?.reason ?? 'the journals differ'}`);
    if (outcome.divergence?.expected !== undefined)
      ctx.out.line(paint.dim(`  recorded: ${JSON.stringify(outcome.divergence.expected).slice(0, 300)}`));
    if (outcome.divergence?.actual !== undefined)
      ctx.out.line(paint.dim(`  replayed: ${JSON.stringify(outcome.divergence.actual).slice(0, 300)}`));
    return 1;
  } finally {
    await conn.close();
  }
}
