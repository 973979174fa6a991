import type { AgentRecord, ProjectCore } from '@cairn/orchestrator/engine';
import type { Queue } from 'bullmq';
import { answered } from './queue-answer.js';
import { redactedUrl } from './queue-probe.js';
import { type WithoutWorkers, WORKER_WAIT_MS } from './queue-settings.js';
import type { WorkerRoster } from './worker-roster.js';

/** How long the list of connected workers is reused before Redis is asked again. */
const WORKERS_FRESH_MS = 1000;

/** How a queued agent's reason begins while the coordinator says no worker takes it. */
const NO_WORKER = 'no trusted worker';
/** How it begins while the queue does not answer. */
const NO_QUEUE = 'the queue at ';

/** What a queued agent's wait depends on. */
export interface WorkerWaitOptions {
  /** `redis://HOST:PORT` of the queue (said, without its password, when it does not answer). */
  queue: string;
  workerWaitMs?: number;
  withoutWorkers?: WithoutWorkers;
}

/**
 * Decides for a queued agent that no worker has taken: it waits; past `workerWaitMs` with no trusted worker
 * connected (or no queue answering) its reason says so, once, with an `agent.waiting` event; under
 * `withoutWorkers: run-here` it leaves the queue and runs on the coordinator.
 */
export class WorkerWait {
  private connected: { at: number; names: Promise<string[] | undefined> } | undefined;

  constructor(
    private readonly core: Pick<ProjectCore, 'store' | 'emit' | 'clock'>,
    private readonly queue: Pick<Queue, 'getWorkers' | 'remove' | 'getJob'>,
    private readonly roster: WorkerRoster,
    private readonly options: WorkerWaitOptions,
    /** How a worker is started for this coordinator, for the hint. */
    private readonly workerCommand: () => string | undefined,
  ) {}

  /**
   * A queued agent no worker has taken: past `workerWaitMs` with no trusted worker connected, its reason says
   * so (once, with an `agent.waiting` event), and under `run-here` its job leaves the queue and it runs here.
   */
  async withoutWorker(record: AgentRecord): Promise<'wait' | 'here'> {
    const bound = this.options.workerWaitMs ?? WORKER_WAIT_MS;
    if (this.core.clock() - (record.remoteJob?.queuedAt ?? record.updatedAt) < bound) return 'wait';
    const connected = await this.connectedWorkers();
    const trusted = connected?.filter((name) => this.enrolled(name) && this.roster.untrusted(name) === undefined);
    if (trusted !== undefined && trusted.length > 0) {
      // a worker came: it takes the agent when it has a free slot
      if (record.reason?.startsWith(NO_WORKER) === true || record.reason?.startsWith(NO_QUEUE) === true)
        this.core.store.update(record.id, { reason: undefined }, ['queued']);
      return 'wait';
    }
    const runHere = this.options.withoutWorkers === 'run-here';
    const untrusted = Object.keys(this.roster.marks());
    const seconds = Math.round(bound / 1000);
    const command = this.workerCommand();
    const reason = [
      `${NO_WORKER} took it in ${seconds} s, and none is connected to the queue`,
      untrusted.length === 0 ? '' : ` (untrusted: ${untrusted.join(', ')})`,
      runHere ? '; it runs on the coordinator instead' : '',
    ].join('');
    const hint = [
      `start a worker${command === undefined ? '' : ` (${command})`}`,
      untrusted.length === 0 ? '' : `, or clear an untrusted one (\`cairn worker trust ${untrusted[0]}\`)`,
      runHere
        ? ''
        : '; or let the coordinator run such agents itself: "withoutWorkers": "run-here" in .cairn/config.json, or `cairn up --without-workers run-here`',
    ].join('');
    this.say(record, reason, hint, runHere);
    if (!runHere || !(await this.withdraw(record))) return 'wait';
    // run here as an agent of this process: no job, no token
    this.core.store.update(record.id, { remoteJob: undefined, tokenHash: undefined }, ['queued']);
    return 'here';
  }

  /**
   * A queued agent whose queue does not answer (Redis away): past `workerWaitMs` its reason says so (once, with an
   * `agent.waiting` event); under `run-here` it runs here, its job left behind (a worker that takes it once Redis
   * is back has its upload refused: the job is no longer the agent's).
   */
  withoutQueue(record: AgentRecord): 'wait' | 'here' {
    const bound = this.options.workerWaitMs ?? WORKER_WAIT_MS;
    if (this.core.clock() - (record.remoteJob?.queuedAt ?? record.updatedAt) < bound) return 'wait';
    const runHere = this.options.withoutWorkers === 'run-here';
    const queue = redactedUrl(this.options.queue);
    const reason = `${NO_QUEUE}${queue} does not answer, so no worker can take it${runHere ? '; it runs on the coordinator instead' : ''}`;
    this.say(
      record,
      reason,
      `start Redis again (\`redis-cli -u ${queue} ping\` says whether it answers); queued agents then go to the workers`,
      runHere,
    );
    if (!runHere) return 'wait';
    this.core.store.update(record.id, { remoteJob: undefined, tokenHash: undefined }, ['queued']);
    return 'here';
  }

  /** Takes the agent's job off the queue if no worker has it: true when it is off (or gone). */
  async withdraw(record: AgentRecord): Promise<boolean> {
    const jobId = record.remoteJob?.id;
    if (jobId === undefined) return true;
    try {
      if ((await answered(this.queue.remove(jobId))) === 1) return true;
      return (await answered(this.queue.getJob(jobId))) === undefined;
    } catch {
      return false;
    }
  }

  /** Sets a queued agent's reason for waiting, and says it (`agent.waiting`) when it is new. */
  private say(record: AgentRecord, reason: string, hint: string, runHere: boolean): void {
    if (record.reason === reason) return;
    this.core.store.update(record.id, { reason }, ['queued']);
    this.core.emit({
      type: 'agent.waiting',
      time: new Date(this.core.clock()).toISOString(),
      agentId: record.id,
      reason,
      hint,
      then: runHere ? 'run-here' : 'wait',
    });
  }

  /** The names of the workers connected to the queue now (undefined when Redis cannot say), asked at most once a second. */
  private connectedWorkers(): Promise<string[] | undefined> {
    const now = this.core.clock();
    if (this.connected !== undefined && now - this.connected.at < WORKERS_FRESH_MS) return this.connected.names;
    const names = answered(this.queue.getWorkers())
      .then((clients) => {
        const raw = clients.map((client) => String((client as { rawname?: unknown }).rawname ?? ''));
        if (clients.length > 0 && raw.every((name) => name === '')) return undefined;
        return raw.flatMap((name) => /:w:(.+)$/.exec(name)?.[1] ?? []);
      })
      .catch(() => undefined);
    this.connected = { at: now, names };
    return names;
  }

  private enrolled(name: string): boolean {
    try {
      return this.roster.keyOf(name) !== undefined;
    } catch {
      return false;
    }
  }
}
