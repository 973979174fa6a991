import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInfo, InboxLogView, InboxProcessOutcome, InboxResult, InboxThread, ReviewOptions, SpawnOptions } from '@cairn/api';
import { agentSpec, CairnError, oneLine } from '@cairn/api';
import { type Actor, parseAuditLog, parseReason, parseTriage, triage } from '@cairn/triage';
import type { AgentCommands } from '../agents/agent-commands.js';
import type { AgentRecord } from '../agents/agent-store.js';
import type { CheckService } from '../agents/check-service.js';
import type { DecisionWritten, ProjectCore, ReviewerDecisions } from '../agents/project-core.js';
import { diffOf } from '../agents/proposal-reader.js';
import type { AcceptQueue } from '../review/accept-queue.js';
import { rejectAgent } from '../review/retire.js';
import { auditPath, readAudit } from './audit.js';
import { Inbox } from './inbox.js';
import { type InboxSettings, loadInboxSettings } from './inbox-settings.js';
import { decisionCarriedOut } from './outcomes.js';
import { type InboxExecutor, type ProcessContext, processThread } from './process-inbox.js';
import { agentOfThreadName, threadNames } from './thread-file.js';

/**
 * The review inbox of a project: its threads, the decisions people and reviewer agents write into them,
 * carried out one pass at a time under the protocol, and the audit log. Accepts and rejects made directly
 * (`cairn accept`) are recorded here too, so the thread and the log tell the whole story.
 */
export class InboxService implements ReviewerDecisions {
  readonly inbox: Inbox;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly core: Pick<ProjectCore, 'clock' | 'emit' | 'layout' | 'lifecycle' | 'owner' | 'running' | 'stable' | 'store'>,
    private readonly commands: AgentCommands,
    private readonly person: Actor,
    private readonly checks: CheckService,
    private readonly accepts: AcceptQueue,
  ) {
    this.inbox = new Inbox({
      layout: core.layout,
      store: core.store,
      clock: core.clock,
      owner: core.owner,
      emit: (event) => core.emit(event),
    });
  }

  list(all: boolean): InboxThread[] {
    return this.inbox.list(all);
  }

  /** Carries out every decided thread (or the named ones), one pass after another, never two at once. */
  process(only?: readonly string[]): Promise<InboxProcessOutcome> {
    const run = this.chain.then(() => this.runPass(only));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves once no pass is running. */
  async idle(): Promise<void> {
    await this.chain;
  }

  /** Writes a reviewer's decision into the reviewed agent's thread, then carries it out. */
  async record(reviewer: AgentRecord, decision: { decision: string; note: string }): Promise<DecisionWritten> {
    const parsed = parseTriage(decision.decision);
    if (!parsed.ok) throw new CairnError('CAIRN_INVALID_ARGUMENT', `not a decision: ${parsed.error.message}`);
    const written = this.inbox.writeDecision(reviewer.reviews ?? '', parsed.value, (reviewer.actor ?? reviewer.id) as Actor, decision.note);
    if ('thread' in written) await this.process([written.thread]);
    return written;
  }

  /** Starts a reviewer agent on a reviewing agent's proposal (a program, a model, or a reviewer the project names). */
  startReviewer(id: string, options: ReviewOptions): AgentRecord {
    const target = this.core.store.require(id);
    if (target.role === 'reviewer')
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `agent ${id} is a reviewer; review the agent it reviews (${target.reviews ?? '?'})`);
    if (target.state !== 'reviewing')
      throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} is ${target.state}; only a reviewing agent's proposal can be reviewed`);
    const { as, ...spawn } = options;
    const named = as === undefined ? undefined : this.namedReviewer(as);
    const spec = agentSpec(`Review the proposal of agent ${id}. Its task: ${target.task}`, { ...spawn, ...named?.options });
    this.inbox.ensureThread(target, diffOf(this.core, id));
    return this.commands.createReviewer(spec, { reviews: id, ...(named === undefined ? {} : { actor: named.actor }) });
  }

  /** Keeps the thread of a reviewing agent current (with its latest diff). */
  ensureThread(record: AgentRecord, diff: string): void {
    this.quietly(() => this.inbox.ensureThread(record, diff));
  }

  /** Rewrites the `## Checks` section of the agent's waiting thread with its latest check results. */
  noteChecks(agentId: string): void {
    this.quietly(() => this.inbox.noteChecks(agentId, this.checks.infos(agentId)));
  }

  /** Records a direct accept in the thread and the audit log, when it merged. */
  noteAccept<T extends { agent: AgentInfo }>(id: string, outcome: T): T {
    if (outcome.agent.state === 'accepted')
      this.quietly(() => this.inbox.recordDirect(id, triage.merge(), this.person, 'merged', '✓ merged'));
    return outcome;
  }

  /** Records a direct reject in the thread and the audit log. */
  noteReject(agent: AgentInfo): AgentInfo {
    const why = parseReason(oneLine(agent.reason ?? 'rejected').slice(0, 500) || 'rejected');
    if (why.ok) this.quietly(() => this.inbox.recordDirect(agent.id, triage.delete(why.value), this.person, 'rejected', '✓ deleted'));
    return agent;
  }

  /** One day of the audit log (`YYYY-MM-DD`, default today in UTC). */
  log(date?: string): InboxLogView {
    const day = date ?? new Date(this.core.clock()).toISOString().slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day)))
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `"${day}" is not a date like 2026-11-23`);
    const { auditDir } = this.core.layout;
    const path = auditPath(auditDir, day);
    const text = readAudit(auditDir, day);
    if (text === undefined) return { date: day, path, entries: [] };
    const parsed = parseAuditLog(text);
    if (parsed.ok) return { date: day, path, entries: parsed.value.entries };
    const problems = parsed.error.map((d) => ({ line: d.line, column: d.column, code: d.code, message: d.message }));
    return { date: day, path, entries: [], problems };
  }

  private async runPass(only: readonly string[] | undefined): Promise<InboxProcessOutcome> {
    const names = only ?? threadNames(this.core.layout.inboxDir);
    const bad = names.find((name) => typeof name !== 'string' || name.includes('/') || name.startsWith('.'));
    if (bad !== undefined)
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `"${String(bad)}" is not a thread file name in .cairn/threads/inbox/`);
    const context = this.processContext();
    const results: InboxResult[] = [];
    for (const name of names) {
      // a run of the thread's agent that has just ended here may not have closed its overlay yet: a decision (a
      // reject moves the overlay to the trash) is carried out once it has
      const agentId = agentOfThreadName(name);
      if (agentId !== undefined) await this.core.running.ended(agentId);
      const result = await processThread(this.inbox, name, context);
      if (result === undefined) continue;
      results.push(result);
      if (result.outcome !== 'invalid') {
        const agent = result.agentId === undefined ? {} : { agentId: result.agentId };
        this.core.emit({ type: 'inbox.processed', time: new Date(this.core.clock()).toISOString(), ...agent, result });
      }
    }
    return { ok: results.every((r) => decisionCarriedOut(r.outcome)), results };
  }

  private processContext(): ProcessContext {
    const { core } = this;
    const executor: InboxExecutor = {
      // through the project's one accept queue, in turn with every other surface's accepts
      accept: async (agentId, gated) => {
        const [item] = (await this.accepts.acceptMany([agentId], { checks: gated })).accepts;
        return item!;
      },
      reject: (agentId, reason) => void rejectAgent(core, agentId, reason),
      reply: (agentId, feedback) => this.commands.revise(agentId, feedback),
      startReviewer: (agentId, name) => this.startReviewer(agentId, { as: name }).id,
      rewriteThread: (agentId, note) => {
        const record = core.store.require(agentId);
        if (record.state === 'reviewing') this.inbox.ensureThread(record, diffOf(core, agentId), note);
      },
    };
    let settings: InboxSettings | undefined;
    const loaded = () => (settings ??= loadInboxSettings(core.layout.root, core.layout.configPath));
    return {
      root: core.layout.root,
      owner: core.owner,
      clock: core.clock,
      store: (agentId) => core.store.get(agentId),
      isAgent: (actor) => core.store.get(actor) !== undefined || loaded().reviewers.has(actor),
      settings: loaded,
      executor,
      approvalsOf: (agentId) =>
        this.inbox.decisions
          .forAgent(agentId)
          .filter((row) => row.state === 'done' && row.approval)
          .map((row) => row.actor),
    };
  }

  /** A reviewer `.cairn/config.json` names: the name it decides as, and its program or model. */
  private namedReviewer(name: string): { actor: string; options: SpawnOptions } {
    const { root, configPath } = this.core.layout;
    const settings = loadInboxSettings(root, configPath);
    const named = settings.reviewers.get(name);
    if (named === undefined) {
      const known = [...settings.reviewers.keys()];
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `no reviewer "${name}" in .cairn/config.json`, {
        hint:
          known.length > 0
            ? `the project names: ${known.join(', ')}`
            : 'name reviewers under "inbox.reviewers" in .cairn/config.json (SPEC.md §7)',
      });
    }
    const options: SpawnOptions = { lang: named.lang };
    if (named.codeFile !== undefined) {
      try {
        options.code = readFileSync(join(root, named.codeFile), 'utf8');
      } catch (error) {
        throw new CairnError('CAIRN_CONFIG', `reviewer "${named.name}": cannot read ${named.codeFile}: ${(error as Error).message}`);
      }
    } else if (named.model !== undefined) options.model = named.model;
    return { actor: named.name, options };
  }

  /** Inbox bookkeeping must not fail the operation it follows: a failure is reported as an event. */
  private quietly(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      const message = `the review inbox could not be updated: ${(error as Error).message}`;
      this.core.emit({ type: 'error', time: new Date(this.core.clock()).toISOString(), code: 'inbox', message });
    }
  }
}
