import type { CairnApi, CairnEvent, CheckResultInfo } from '@cairn/orchestrator/client';
import type { Output } from './output.js';
import { renderCheckLine } from './render/checks.js';

interface RunningCheck {
  agentId: string;
  name: string;
}

/**
 * Follows the checks this process runs until none is left: a line naming them, then one as each finishes.
 * Without a daemon they run in the command's own process, which waits for them before it exits, so the wait is
 * shown rather than silent.
 */
export async function followChecks(out: Output, api: CairnApi, stream: AsyncIterator<CairnEvent>): Promise<void> {
  let running = await runningChecks(api);
  if (running.length === 0) return;
  const many = new Set(running.map((check) => check.agentId)).size > 1;
  const names = running.map((check) => (many ? `${check.agentId} ${check.name}` : check.name)).join(', ');
  const whose = many ? '' : ` of ${running[0]?.agentId}`;
  out.line(`checks${whose} run here until they finish (no daemon runs them; Ctrl-C stops them): ${names}`);
  const width = Math.max(4, ...running.map((check) => check.name.length));
  while (running.length > 0) {
    const next = await stream.next();
    if (next.done === true) break;
    const event = next.value;
    if (event.type !== 'check.started' && event.type !== 'check.finished') continue;
    out.event(event);
    if (event.type === 'check.finished' && isOutcome(event.result) && includes(running, event.agentId, event.result.name)) {
      out.line(`  ${many ? `${out.paint.bold(event.agentId)} ` : ''}${renderCheckLine(event.result, out.paint, width)}`);
    }
    running = await runningChecks(api);
  }
}

/** The reviewing agents' checks still due or running. */
async function runningChecks(api: CairnApi): Promise<RunningCheck[]> {
  const agents = await api.agents({ state: ['reviewing'] });
  return agents.flatMap((agent) =>
    (agent.checks ?? []).filter((check) => check.status === 'pending').map((check) => ({ agentId: agent.id, name: check.name })),
  );
}

/** A result that ends a run: its outcome, or stale (the working tree moved while it ran). */
function isOutcome(result: CheckResultInfo): boolean {
  return result.status !== 'pending';
}

function includes(running: readonly RunningCheck[], agentId: string, name: string): boolean {
  return running.some((check) => check.agentId === agentId && check.name === name);
}
