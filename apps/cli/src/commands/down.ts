import { rmSync } from 'node:fs';
import { connectDaemon, isCairnError, processAlive, projectLayout, readPidFile } from '@cairn/daemon/client';
import { daemonHoldsProject } from '@cairn/daemon/lock';
import type { CommandContext } from '../context.js';

const STOP_TIMEOUT_MS = 180_000;

/** `cairn down`: stops the project's daemon cleanly (running agents finish first); cleans up after a killed one. */
export async function downCommand(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const layout = projectLayout(ctx.root);
  const pidFile = readPidFile(layout.pidPath);
  const client = await connectDaemon(layout.root, layout.socketPath, { pidPath: layout.pidPath });
  if (client === undefined) {
    if (pidFile !== undefined && daemonHoldsProject(layout) && processAlive(pidFile.pid)) {
      // a daemon still importing the project holds it but does not answer yet: ask it to stop
      process.kill(pidFile.pid, 'SIGTERM');
      return awaitExit(ctx, pidFile.pid, STOP_TIMEOUT_MS);
    }
    if (pidFile !== undefined) {
      rmSync(layout.pidPath, { force: true });
      rmSync(layout.socketPath, { force: true });
      out.result(true, { stopped: false, cleaned: true, pid: pidFile.pid });
      out.line(`no daemon runs for ${layout.root}; cleaned up after one that was killed (pid ${pidFile.pid})`);
      return 0;
    }
    out.result(true, { stopped: false });
    out.line(`no daemon runs for ${layout.root}`);
    return 0;
  }
  let pid: number;
  try {
    pid = (await client.health()).pid;
    await client.shutdown();
  } catch (error) {
    // a daemon that does not answer (stopped with SIGSTOP, or stuck) is asked to stop by signal
    const unanswering = isCairnError(error) && error.code === 'CAIRN_DAEMON' && pidFile !== undefined && processAlive(pidFile.pid);
    if (!unanswering || !daemonHoldsProject(layout)) throw error;
    process.kill(pidFile.pid, 'SIGCONT');
    process.kill(pidFile.pid, 'SIGTERM');
    return awaitExit(ctx, pidFile.pid, UNANSWERING_STOP_MS, 'it did not answer, so it was sent SIGTERM');
  } finally {
    await client.close();
  }
  return awaitExit(ctx, pid, STOP_TIMEOUT_MS);
}

/** How long a daemon that did not answer is given to stop after SIGTERM. */
const UNANSWERING_STOP_MS = 10_000;

async function awaitExit(ctx: CommandContext, pid: number, timeoutMs: number, how?: string): Promise<number> {
  const { out } = ctx;
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (processAlive(pid)) {
    const stuck = how !== undefined;
    out.error(
      'CAIRN_DAEMON',
      `the daemon (pid ${pid}) did not stop in time${stuck ? ` (${how})` : ''}`,
      stuck ? `end it with \`kill -9 ${pid}\`` : `stop it with \`kill ${pid}\``,
    );
    return 1;
  }
  out.result(true, { stopped: true, pid });
  out.line(`stopped the daemon (pid ${pid})${how === undefined ? '' : `: ${how}`}`);
  return 0;
}
