import { type CairnEvent, describeCheckStatus } from '@cairn/daemon/client';
import type { Paint } from '../output.js';
import { changedFilesInWords } from './changed-files.js';

/** One event as a line for people (the agent id first when there is one). */
export function describeEvent(event: CairnEvent, paint: Paint): string {
  const who = 'agentId' in event && event.agentId !== undefined ? `${paint.bold(event.agentId)} ` : '';
  switch (event.type) {
    case 'agent.queued':
      return `${who}queued: ${event.task}`;
    case 'agent.started':
      return event.again === true
        ? `${who}started again (run ${event.run}; the interrupted run was rolled back)`
        : `${who}started (run ${event.run})`;
    case 'agent.generating':
      return `${who}asking ${event.model} for a program${event.round > 0 ? ` (repair ${event.round})` : ''}`;
    case 'agent.repairing':
      return `${who}${paint.yellow('repairing')} (round ${event.round}): ${event.problem}`;
    case 'agent.tool-called':
      return `${who}${event.tool}${toolArguments(event)}${event.ok ? '' : ` ${paint.red('failed')}: ${event.message ?? ''}`}`;
    case 'agent.denied':
      return `${who}${paint.red('denied')} ${event.tool}${event.path === undefined ? '' : ` ${event.path}`}: ${event.reason}`;
    case 'agent.log':
      return `${who}log: ${event.message}`;
    case 'agent.submitted':
      return `${who}${paint.yellow('submitted')} for review: ${event.summary} (${changedFilesInWords(event.changes)})`;
    case 'agent.accepted':
      return `${who}${paint.green('accepted')} ${event.applied.length} path${event.applied.length === 1 ? '' : 's'}${event.conflicts.length > 0 ? `, ${paint.red(`${event.conflicts.length} conflicted`)}` : ''}`;
    case 'agent.undone':
      return `${who}accept undone (${event.restored.length} restored)`;
    case 'agent.rejected':
      return `${who}rejected: ${event.reason}`;
    case 'agent.restored':
      return `${who}restored`;
    case 'agent.replied':
      return `${who}revising: ${event.feedback}`;
    case 'agent.failed':
      return `${who}${paint.red('failed')}: ${event.reason} ${paint.dim(`(${event.code})`)}`;
    case 'agent.requeued':
      return `${who}${paint.yellow('queued again')}: ${event.reason}`;
    case 'agent.waiting':
      return `${who}${paint.yellow('waits for a worker')}: ${event.reason}`;
    case 'agent.decided':
      return `${who}${paint.magenta('decided')} ${event.decision} on ${event.reviews}${event.thread === undefined ? '' : ` (${event.thread})`}`;
    case 'accept.waiting':
      return event.for === 'turn'
        ? `${who}accept waits for its turn (${event.ahead ?? 1} accept${event.ahead === 1 || event.ahead === undefined ? '' : 's'} ahead)`
        : `${who}accept waits for its checks to run on the project as it is now: ${(event.checks ?? []).join(', ')}`;
    case 'check.started':
      return `${who}check ${event.name} started`;
    case 'check.finished': {
      const words = describeCheckStatus(event.result);
      const colour = event.result.status === 'passed' ? paint.green : event.result.status === 'stale' ? paint.dim : paint.red;
      return `${who}check ${event.result.name} ${colour(words)}`;
    }
    case 'inbox.received':
      return `${who}inbox: thread ${event.thread}`;
    case 'inbox.processed':
      return `${who}inbox: ${event.result.decision ?? ''} → ${event.result.executed}`;
    case 'inbox.invalid':
      return `${who}inbox: ${paint.red('cannot read')} ${event.thread}: ${event.diagnostics.map((d) => `line ${d.line}, column ${d.column}: ${d.message}`).join('; ')}`;
    case 'sync.progress':
      return `sync ${event.phase}: ${event.done}/${event.total}`;
    case 'sync.changed':
      return `synced ${event.paths.length} edit${event.paths.length === 1 ? '' : 's'}: ${event.paths.slice(0, 5).join(', ')}${event.paths.length > 5 ? ', …' : ''}`;
    case 'error':
      return `${who}${paint.red('error')}: ${event.message}`;
  }
}

/**
 * What a tool call was about, after its name: a search's pattern and where it looked (`.` for the whole project),
 * or the path of any other call.
 */
function toolArguments(event: Extract<CairnEvent, { type: 'agent.tool-called' }>): string {
  const where = event.path === undefined ? undefined : event.path === '' ? '.' : event.path;
  if (event.pattern === undefined) return where === undefined ? '' : ` ${where}`;
  return ` ${JSON.stringify(event.pattern)}${where === undefined || where === '.' ? '' : ` in ${where}`}`;
}
