import { rmSync } from 'node:fs';
import { connectDaemon, processAlive, projectLayout, readPidFile } from '@cairn/orchestrator/client';
import { daemonHoldsProject } from '@cairn/orchestrator/daemon-lock';
import type { CommandContext } from '../context.js';

const STOP_TIMEOUT_MS = 180_000;

/** `cairn down`: stops the project's daemon cleanly (running agents finish first); cleans up after a killed one. */
export async function downCommand(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const layout = projectLayout(ctx.root);
  const pidFile = readPidFile(layout.pidPath);
  const client = await connectDaemon(layout.root, layout.socketPath);
  if (client === undefined) {
    if (pidFile !== undefined && daemonHoldsProject(layout) && processAlive(pidFile.pid)) {
      // a daemon still importing the project holds it but does not answer yet: ask it to stop
      process.kill(pidFile.pid, 'SIGTERM');
      return awaitExit(ctx, pidFile.pid);
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
  const health = await client.health();
  await client.shutdown();
  await client.close();
  return awaitExit(ctx, health.pid);
}

async function awaitExit(ctx: CommandContext, pid: number): Promise<number> {
  const { out } = ctx;
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (processAlive(pid)) {
    out.error('CAIRN_DAEMON', `the daemon (pid ${pid}) did not stop in time`, `stop it with \`kill ${pid}\``);
    return 1;
  }
  out.result(true, { stopped: true, pid });
  out.line(`stopped the daemon (pid ${pid})`);
  return 0;
}
