import { rmSync } from 'node:fs';
import { connectDaemon, processAlive, projectLayout, readPidFile } from '@cairn/orchestrator';
import type { CommandContext } from '../context.js';

const STOP_TIMEOUT_MS = 180_000;

/** `cairn down`: stops the project's daemon cleanly (running agents finish first); cleans up after a killed one. */
export async function downCommand(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const layout = projectLayout(ctx.root);
  const pidFile = readPidFile(layout.pidPath);
  const client = await connectDaemon(layout.root, layout.socketPath);
  if (client === undefined) {
    if (pidFile !== undefined && !processAlive(pidFile.pid)) {
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
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (processAlive(health.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (processAlive(health.pid)) {
    out.error('CAIRN_DAEMON', `the daemon (pid ${health.pid}) did not stop in time`, `stop it with \`kill ${health.pid}\``);
    return 1;
  }
  out.result(true, { stopped: true, pid: health.pid });
  out.line(`stopped the daemon (pid ${health.pid})`);
  return 0;
}
