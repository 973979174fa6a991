import { randomUUID } from 'node:crypto';
import type { CheckResultInfo } from '@cairn/api';
import { CairnError } from '@cairn/api';
import type { CheckResultStore, StoredCheck } from '@cairn/checks';
import { type CheckSpec, loadCheckSettings, runSealed } from '@cairn/checks';
import { proposalRef } from '../run/check-adapter.js';
import type { AgentRecord } from './agent-store.js';
import { type CheckExecution, executeCheck } from './check-execution.js';
import { CheckPool } from './check-pool.js';
import { mergedProposalOf } from './merged-proposal.js';
import type { ProjectCore } from './project-core.js';
import { withOverlayOf } from './proposal-reader.js';

/** Runs a check (the sealed runner; a test may pass another). */
export type SealedRunner = typeof runSealed;

/** How a project's checks behave in this process. */
export interface CheckServiceOptions {
  /**
   * Whether a move of the working tree runs the reviewing agents' automatic checks again here (default true).
   * False in a process that only shows the project: their results go stale, for a process that runs to take up.
   */
  rerunOnMove?: boolean;
  runner?: SealedRunner;
}

/**
 * The project's checks on proposals: the automatic ones run in the background when a proposal reaches
 * `reviewing`, at most `slots` at once (the pool's size); any can be run on demand. A check sees the project as
 * accepting the proposal now would leave it (each changed file merged onto the working tree as it is). Results
 * are kept per agent and per check, for the exact proposal they ran on; a revision or a move of the working tree
 * makes them stale, and the automatic ones run again (on a move, only where the process runs checks of its own
 * accord).
 */
export class CheckService {
  private readonly stopping = new AbortController();
  /** The agents whose checks this process started. */
  private readonly started = new Set<string>();
  private readonly pool: CheckPool;
  private readonly execution: CheckExecution;
  private readonly rerunOnMove: boolean;

  constructor(
    private readonly core: Pick<ProjectCore, 'clock' | 'emit' | 'layout' | 'stable' | 'store'>,
    private readonly results: CheckResultStore,
    slots: number,
    options: CheckServiceOptions = {},
  ) {
    this.pool = new CheckPool(slots);
    this.execution = { core, results, runner: options.runner ?? runSealed, signal: this.stopping.signal };
    this.rerunOnMove = options.rerunOnMove ?? true;
  }

  /** The declared checks (`.cairn/config.json`, read afresh). */
  specs(): CheckSpec[] {
    return loadCheckSettings(this.core.layout.configPath);
  }

  /**
   * An agent's check results, as every surface shows them: those of the checks declared now, each automatic or
   * on-demand as declared now (all of them, as they ran, while the settings cannot be read).
   */
  infos(agentId: string): CheckResultInfo[] {
    const infos = this.results.list(agentId).map((stored) => stored.info);
    let specs: CheckSpec[];
    try {
      specs = this.specs();
    } catch {
      return infos;
    }
    return infos.flatMap((info) => {
      const spec = specs.find((s) => s.name === info.name);
      return spec === undefined ? [] : [{ ...info, auto: spec.auto }];
    });
  }

  /** One check's result with its output; refused when the check never ran on this agent. */
  result(agentId: string, name: string): StoredCheck {
    this.core.store.require(agentId);
    const stored = this.results.get(agentId, name);
    if (stored === undefined) {
      const known = this.specs().map((spec) => spec.name);
      throw new CairnError(
        'CAIRN_NOT_FOUND',
        known.includes(name) ? `check ${name} has not run on agent ${agentId}` : `no check named ${JSON.stringify(name)}`,
        { hint: known.length === 0 ? 'declare checks in .cairn/config.json (`cairn checks suggest`)' : `checks: ${known.join(', ')}` },
      );
    }
    return stored;
  }

  /** Starts the automatic checks of an author's proposal that reached `reviewing` (errors in the settings are reported, not thrown). */
  proposalReady(record: AgentRecord): void {
    if (record.role === 'reviewer' || record.state !== 'reviewing') return;
    let auto: CheckSpec[];
    try {
      auto = this.specs().filter((spec) => spec.auto);
    } catch (error) {
      this.core.emit({ type: 'error', time: this.now(), agentId: record.id, code: 'CAIRN_CONFIG', message: (error as Error).message });
      return;
    }
    if (auto.length > 0)
      void this.start(record.id, auto).catch((error: unknown) =>
        this.core.emit({
          type: 'error',
          time: this.now(),
          agentId: record.id,
          code: 'CAIRN_CHECKS',
          message: `checks could not start: ${(error as Error).message}`,
        }),
      );
  }

  /** Runs the named checks (default: all declared) on an agent's proposal now, and waits for their results. */
  async run(agentId: string, names?: readonly string[]): Promise<CheckResultInfo[]> {
    const record = this.core.store.require(agentId);
    if (record.state !== 'reviewing' && record.state !== 'accepted')
      throw new CairnError('CAIRN_INVALID_STATE', `agent ${agentId} is ${record.state}; checks run on a proposal (reviewing)`);
    const specs = this.specs();
    const unknown = (names ?? []).filter((name) => !specs.some((spec) => spec.name === name));
    if (unknown.length > 0)
      throw new CairnError('CAIRN_NOT_FOUND', `no check named ${unknown.map((n) => JSON.stringify(n)).join(', ')}`, {
        hint:
          specs.length === 0
            ? 'declare checks in .cairn/config.json (`cairn checks suggest`)'
            : `checks: ${specs.map((s) => s.name).join(', ')}`,
      });
    const chosen = names === undefined || names.length === 0 ? specs : specs.filter((spec) => names.includes(spec.name));
    await this.start(agentId, chosen);
    return this.infos(agentId).filter((info) => chosen.some((spec) => spec.name === info.name));
  }

  /**
   * Resolves once none of the agent's automatic checks is pending or stale, with those that did not pass (empty:
   * all passed). A check running in this process is waited for; one stale, or pending with no run here (a
   * process that stopped, or another one's), is run here.
   */
  async settled(agentId: string, signal?: AbortSignal): Promise<CheckResultInfo[]> {
    for (;;) {
      if (signal?.aborted || this.stopping.signal.aborted)
        throw new CairnError('CAIRN_CLOSED', 'the project is closing; the accept was not made');
      const open = this.notPassing(agentId).filter((info) => info.status === 'pending' || info.status === 'stale');
      if (open.length === 0) return this.notPassing(agentId);
      const here = this.pool.of(agentId);
      const work =
        here.length > 0
          ? Promise.allSettled(here)
          : this.start(
              agentId,
              this.specs().filter((spec) => open.some((info) => info.name === spec.name)),
            );
      await untilAborted(work, signal);
    }
  }

  /** The automatic checks declared now whose result on the agent is not `passed` (failed, running, stale…). */
  notPassing(agentId: string): CheckResultInfo[] {
    return this.infos(agentId).filter((info) => info.auto && info.status !== 'passed');
  }

  /** The agent's proposal is being revised: its results no longer hold. */
  proposalMoved(agentId: string): void {
    if (this.results.markStale(agentId, this.core.clock()) > 0) this.finishedEvents(agentId);
  }

  /**
   * The working tree moved under every proposal: reviewing agents' results go stale, and their automatic checks
   * run again unless this process only shows the project.
   */
  workingTreeMoved(): void {
    for (const agentId of this.results.agentsWithResults()) {
      const record = this.core.store.get(agentId);
      if (record?.state !== 'reviewing') continue;
      this.proposalMoved(record.id);
      if (this.rerunOnMove) this.proposalReady(record);
    }
  }

  /** The checks this process runs or holds waiting for a slot. */
  running(): { agentId: string; name: string }[] {
    return this.pool.running();
  }

  /** Resolves when no check is running or waiting. */
  idle(): Promise<void> {
    return this.pool.idle();
  }

  /**
   * Kills the checks running or waiting and resolves once they are gone. Their results stay `pending` (see
   * `resumeInterrupted`), or, with `stale`, go stale (a process that does not run every agent, interrupted).
   */
  async stop(options: { stale?: boolean } = {}): Promise<void> {
    this.stopping.abort();
    await this.idle();
    if (options.stale !== true) return;
    for (const agentId of this.started) if (this.results.markPendingStale(agentId, this.core.clock()) > 0) this.finishedEvents(agentId);
  }

  /**
   * Catches up when a process that runs every agent opens the project. Results left `pending` by a process that
   * stopped or died mid-run belong to no run, and stale automatic ones (the working tree moved while no such
   * process ran, or a run was stopped) hold for nothing: the agent's results go stale, and a reviewing agent's
   * automatic checks run again.
   */
  resumeInterrupted(): void {
    const due = new Set(this.results.agentsPending());
    let auto: Set<string>;
    try {
      auto = new Set(
        this.specs()
          .filter((spec) => spec.auto)
          .map((spec) => spec.name),
      );
    } catch {
      auto = new Set();
    }
    for (const agentId of this.results.agentsStale())
      if (
        this.core.store.get(agentId)?.state === 'reviewing' &&
        this.results.list(agentId).some((stored) => stored.info.status === 'stale' && auto.has(stored.info.name))
      )
        due.add(agentId);
    for (const agentId of due) {
      const record = this.core.store.get(agentId);
      if (record === undefined) continue;
      this.proposalMoved(record.id);
      this.proposalReady(record);
    }
  }

  private async start(agentId: string, specs: readonly CheckSpec[]): Promise<void> {
    const changes = withOverlayOf(this.core, agentId, (overlay) => mergedProposalOf(overlay));
    // a run of its own: a later run of the same proposal (the working tree moved) supersedes this one
    const ref = `${proposalRef(changes)} ${randomUUID()}`;
    this.started.add(agentId);
    const now = this.core.clock();
    const runs = specs.map((spec) => {
      this.results.put(
        agentId,
        { info: { name: spec.name, status: 'pending', auto: spec.auto, updatedAt: this.now() }, runRef: ref, output: Buffer.alloc(0) },
        now,
      );
      return this.pool.add(agentId, spec.name, `${ref}\n${spec.name}`, () => executeCheck(this.execution, agentId, spec, changes, ref));
    });
    await Promise.all(runs);
  }

  private finishedEvents(agentId: string): void {
    for (const info of this.infos(agentId)) this.core.emit({ type: 'check.finished', time: this.now(), agentId, result: info });
  }

  private now(): string {
    return new Date(this.core.clock()).toISOString();
  }
}

/** `work`, or a rejection as soon as `signal` aborts. */
function untilAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<unknown> {
  if (signal === undefined) return work;
  return new Promise((resolve, reject) => {
    const stop = () => reject(new CairnError('CAIRN_CLOSED', 'the project is closing; the accept was not made'));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
