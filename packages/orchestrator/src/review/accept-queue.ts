import type { AcceptItem, AcceptManyOptions, AcceptManyOutcome, AcceptOptions, AcceptOutcome, CheckResultInfo } from '@cairn/api';
import { CairnError, describeCheckStatus, isCairnError } from '@cairn/api';
import type { CheckService } from '../agents/check-service.js';
import type { ProjectCore } from '../agents/project-core.js';
import { acceptWhenReady, requireReviewing } from './accept.js';

/** How one accept is gated: on the automatic checks (the default), or not at all (`--force`, an inbox without the rule). */
export interface QueuedAcceptOptions extends AcceptOptions {
  /** Wait for the automatic checks and accept only when they all passed (default: unless `force`). */
  checks?: boolean;
}

/** What the queue needs besides the project: its checks, and a way to bring stable.db up to date first. */
export interface AcceptQueueParts {
  core: ProjectCore;
  checks: CheckService;
  /** Imports what changed in the working tree into stable.db; check results it moved under go stale. */
  catchUp(): Promise<unknown>;
}

type Attempt = { outcome: AcceptOutcome } | { failed: CheckResultInfo[] };

/**
 * The project's one queue of accepts in this process (a daemon's serves every surface): accepts run one at a
 * time, in the order they came, a batch (`cairn accept A B C`) as one unit. Each accept first brings stable.db
 * up to date with the working tree, so results from an older tree are known as stale; then, gated, waits for
 * its automatic checks to run on the tree the accepts before it left (with its proposal merged on top), and
 * goes in when they all passed, checked again under the project's lock. Accepts of other processes (a CLI
 * without a daemon) take turns with these on that lock.
 */
export class AcceptQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private readonly closing = new AbortController();

  constructor(private readonly parts: AcceptQueueParts) {}

  /** One accept in turn; checks that did not pass and errors are thrown (`CAIRN_INVALID_STATE` naming the checks). */
  acceptOne(id: string, options: QueuedAcceptOptions = {}): Promise<AcceptOutcome> {
    return this.inTurn(id, async () => {
      const attempt = await this.attempt(id, options);
      if ('failed' in attempt) throw checksFailed(id, attempt.failed);
      return attempt.outcome;
    });
  }

  /** Several accepts in turn, as one unit: the first that does not go in stops the rest unless `keepGoing`. */
  acceptMany(ids: readonly string[], options: AcceptManyOptions & QueuedAcceptOptions = {}): Promise<AcceptManyOutcome> {
    if (ids.length === 0) throw new CairnError('CAIRN_INVALID_ARGUMENT', 'name at least one agent to accept');
    if (ids.length > 1 && options.paths !== undefined)
      throw new CairnError('CAIRN_INVALID_ARGUMENT', 'paths can be given with one agent only', {
        hint: 'accept the agents one by one to pick paths of each',
      });
    const { keepGoing, ...one } = options;
    return this.inTurn(ids[0]!, async () => {
      const accepts: AcceptItem[] = [];
      let stopped = false;
      for (const id of ids) {
        if (stopped) {
          accepts.push({ id, status: 'left' });
          continue;
        }
        const item = await this.itemOf(id, one);
        accepts.push(item);
        if (item.status !== 'accepted' && (keepGoing !== true || (item.status === 'refused' && item.code === 'CAIRN_CLOSED')))
          stopped = true;
      }
      return { ok: accepts.every((item) => item.status === 'accepted'), accepts };
    });
  }

  /** Refuses what is queued and stops what waits (their accepts are not made); an accept under way finishes. */
  close(): void {
    this.closing.abort();
  }

  private async itemOf(id: string, options: QueuedAcceptOptions): Promise<AcceptItem> {
    try {
      const attempt = await this.attempt(id, options);
      if ('failed' in attempt)
        return { id, status: 'checks-failed', message: checksFailed(id, attempt.failed).message, checks: attempt.failed };
      const { applied, agent } = attempt.outcome;
      return attempt.outcome.ok
        ? { id, status: 'accepted', applied, agent }
        : { id, status: 'conflict', applied, conflicts: attempt.outcome.conflicts, agent };
    } catch (error) {
      if (!isCairnError(error)) throw error;
      return { id, status: 'refused', code: error.code, message: error.message, ...(error.hint === undefined ? {} : { hint: error.hint }) };
    }
  }

  /** Runs `fn` once every accept queued before it has finished; says so when it has to wait. */
  private inTurn<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const ahead = this.queued++;
    if (ahead > 0) this.emit({ agentId: id, for: 'turn', ahead });
    const run = this.tail.then(() => {
      if (this.closing.signal.aborted) throw closed();
      return fn();
    });
    this.tail = run.then(
      () => this.queued--,
      () => this.queued--,
    );
    return run;
  }

  /**
   * One accept: stable.db brought up to date, then (gated) the automatic checks waited for until none is stale
   * or running, then the accept under the lock if they still all pass there; round again when they went stale
   * meanwhile (another process moved the tree).
   */
  private async attempt(id: string, options: QueuedAcceptOptions): Promise<Attempt> {
    const { core, checks } = this.parts;
    const { checks: gated = options.force !== true, ...accept } = options;
    for (;;) {
      await this.parts.catchUp();
      requireReviewing(core, id);
      if (gated) {
        const blocking = checks.notPassing(id);
        const failed = blocking.filter((info) => info.status !== 'pending' && info.status !== 'stale');
        if (failed.length > 0) return { failed };
        if (blocking.length > 0) {
          this.emit({ agentId: id, for: 'checks', checks: blocking.map((info) => info.name) });
          const after = await checks.settled(id, this.closing.signal);
          if (after.length > 0) continue;
        }
      }
      const outcome = acceptWhenReady(core, id, accept, () => !gated || checks.notPassing(id).length === 0);
      if (outcome !== undefined) return { outcome };
    }
  }

  private emit(fields: { agentId: string; for: 'turn' | 'checks'; ahead?: number; checks?: string[] }): void {
    this.parts.core.emit({ type: 'accept.waiting', time: new Date(this.parts.core.clock()).toISOString(), ...fields });
  }
}

/** The error of an accept whose automatic checks did not pass, naming them. */
export function checksFailed(id: string, failed: readonly CheckResultInfo[]): CairnError {
  const words = failed.map((info) => `${info.name} ${describeCheckStatus(info)}`).join(', ');
  return new CairnError('CAIRN_INVALID_STATE', `agent ${id}'s checks did not pass: ${words}`, {
    hint: `see them with \`cairn checks ${id}\`; accept anyway with --force`,
  });
}

function closed(): CairnError {
  return new CairnError('CAIRN_CLOSED', 'the project is closing; the accept was not made');
}
