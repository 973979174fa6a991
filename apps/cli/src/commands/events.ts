import { CairnError, connectDaemon, projectLayout } from '@cairn/daemon/client';
import type { CommandContext } from '../context.js';
import { describeEvent } from '../render/events.js';

/** `cairn events [--agent ID]`: follows the daemon's event stream until interrupted. */
export async function eventsCommand(ctx: CommandContext, flags: { agent?: string }): Promise<number> {
  const layout = projectLayout(ctx.root);
  const client = await connectDaemon(layout.root, layout.socketPath, { pidPath: layout.pidPath });
  if (client === undefined) throw needsDaemon('following events');
  const stream = await client.subscribe(flags.agent === undefined ? {} : { agentId: flags.agent });
  const stop = () => void stream.return?.();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  ctx.out.note(ctx.out.paint.dim(`following events of ${layout.root} (Ctrl-C to stop)`));
  try {
    for (let next = await stream.next(); next.done !== true; next = await stream.next()) {
      const event = next.value;
      if (event.type === 'sync.progress') continue;
      ctx.out.event(event);
      ctx.out.line(`${ctx.out.paint.dim(event.time.slice(11, 19))} ${describeEvent(event, ctx.out.paint)}`);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await client.close();
  }
  return 0;
}

/** A CairnError for something only a running daemon can do. */
function needsDaemon(what: string): CairnError {
  return new CairnError('CAIRN_DAEMON', `${what} needs a running daemon, and none runs for this project`, {
    hint: 'start one with `cairn up` (or `cairn up --detach`)',
  });
}
