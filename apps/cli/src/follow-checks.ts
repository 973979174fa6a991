import type { CairnEvent, CheckResultInfo } from '@cairn/daemon/client';
import type { Project } from '@cairn/orchestrator';
import type { Output } from './output.js';
import { renderCheckLine } from './render/checks.js';

/**
 * Follows the checks this process runs until none is left: a line naming them, then one as each ends. Without a
 * daemon they run in the command's own process, which waits for them before it exits, so the wait is shown
 * rather than silent. Checks other processes run (or left pending when they died) are not waited for.
 */
export async function followChecks(
  out: Output,
  project: Project,
  stream: AsyncIterator<CairnEvent>,
  why = 'no daemon runs them',
): Promise<void> {
  const followed = project.runningChecks();
  if (followed.length === 0) return;
  const many = new Set(followed.map((check) => check.agentId)).size > 1;
  const names = followed.map((check) => (many ? `${check.agentId} ${check.name}` : check.name)).join(', ');
  const whose = many ? '' : ` of ${followed[0]?.agentId}`;
  out.line(`checks${whose} run here until they finish (${why}; Ctrl-C stops them): ${names}`);
  const width = Math.max(4, ...followed.map((check) => check.name.length));
  const show = (agentId: string, result: CheckResultInfo) =>
    out.line(`  ${many ? `${out.paint.bold(agentId)} ` : ''}${renderCheckLine(result, out.paint, width)}`);
  const shown = new Set<string>();
  const idle = project.checksIdle().then(() => undefined);
  for (;;) {
    const next = await Promise.race([stream.next(), idle]);
    if (next === undefined || next.done === true) break;
    const event = next.value;
    if (event.type !== 'check.started' && event.type !== 'check.finished') continue;
    out.event(event);
    const key = `${event.agentId} ${event.type === 'check.finished' ? event.result.name : event.name}`;
    if (event.type === 'check.finished' && event.result.status !== 'pending' && isFollowed(followed, key)) {
      shown.add(key);
      show(event.agentId, event.result);
    }
  }
  // a run that ended without an event here (superseded by a later run, or the last event lost the race with idle)
  for (const check of followed) {
    if (shown.has(`${check.agentId} ${check.name}`)) continue;
    const result = (await project.checks(check.agentId)).find((info) => info.name === check.name);
    if (result !== undefined) show(check.agentId, result);
  }
}

function isFollowed(followed: readonly { agentId: string; name: string }[], key: string): boolean {
  return followed.some((check) => `${check.agentId} ${check.name}` === key);
}
