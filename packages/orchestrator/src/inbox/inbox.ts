import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CairnEvent, CheckResultInfo, InboxDiagnostic, InboxResult, InboxThread } from '@cairn/api';
import { writeAtomically } from '@cairn/api';
import { type Actor, formatTriage, parseThread, type Thread, type Triage } from '@cairn/triage';
import type { ProjectLayout } from '@cairn/workspace';
import type { AgentRecord, AgentStore } from '../agents/agent-store.js';
import { appendAudit } from './audit.js';
import { type DecisionRow, DecisionStore } from './decision-store.js';
import {
  agentOfThreadName,
  composeThread,
  moveToDone,
  readThread,
  threadFileName,
  threadNameOf,
  threadNames,
  threadTimestamp,
  withChecksSection,
  withTriage,
} from './thread-file.js';

/** What the inbox needs from the project around it. */
export interface InboxDeps {
  layout: ProjectLayout;
  store: AgentStore;
  clock: () => number;
  /** `pid:token` of this process: the owner of the decisions it claims. */
  owner: string;
  emit(event: CairnEvent): void;
}

/** A thread read from disk: parsed, or the parser's diagnostics. */
export type ReadThread =
  | { name: string; ok: true; thread: Thread; text: string }
  | { name: string; ok: false; diagnostics: InboxDiagnostic[]; text: string };

/**
 * The review inbox's files and decisions: `.cairn/threads/inbox/` (one thread per proposal waiting for a
 * decision, `done/` for processed ones), `.cairn/logs/inbox/` (the audit log), and the decisions table in
 * bin.db that makes every decision run once. Carrying decisions out is `processInbox`'s.
 */
export class Inbox {
  readonly decisions: DecisionStore;

  constructor(private readonly deps: InboxDeps) {
    this.decisions = new DecisionStore(deps.store.database);
  }

  get layout(): ProjectLayout {
    return this.deps.layout;
  }

  /** Rewrites the `## Checks` section of an agent's waiting thread (never once it holds a decision). */
  noteChecks(agentId: string, checks: readonly CheckResultInfo[]): void {
    const { inboxDir } = this.deps.layout;
    this.decisions.locked(() => {
      const name = this.pendingThreadOf(agentId);
      const text = name === undefined ? undefined : readThread(inboxDir, name);
      if (name === undefined || text === undefined) return;
      const updated = withChecksSection(text, checks);
      if (updated !== undefined && updated !== text) writeAtomically(join(inboxDir, name), updated, { durable: true });
    });
  }

  /**
   * Writes the thread of an agent that reached `reviewing`, unless one is already waiting in the inbox,
   * and logs it as received. Returns the thread's name.
   */
  ensureThread(record: AgentRecord, diff: string, note?: string): string | undefined {
    const { inboxDir, inboxDoneDir } = this.deps.layout;
    return this.decisions.locked(() => {
      const waiting = this.pendingThreadOf(record.id);
      if (waiting !== undefined) return waiting;
      prepareSettingsDir(this.deps.layout.settingsDir);
      mkdirSync(inboxDoneDir, { recursive: true });
      const now = this.deps.clock();
      const name = threadFileName(
        new Date(now),
        record.id,
        record.task,
        (n) => existsSync(join(inboxDir, n)) || existsSync(join(inboxDoneDir, n)),
      );
      const text = composeThread(
        {
          agentId: record.id,
          task: record.task,
          ...(record.summary === undefined ? {} : { summary: record.summary }),
          changes: record.changes ?? [],
          diff,
          owner: record.createdBy ?? 'person',
          ...(note === undefined ? {} : { note }),
        },
        now,
      );
      // a view of the proposal (bin.db and the agent's overlay hold it): written whole, without waiting for the disk
      writeAtomically(join(inboxDir, name), text);
      const parsed = parseThread(text);
      appendAudit(this.deps.layout.auditDir, {
        at: now,
        source: parsed.ok ? parsed.value.title : name,
        decision: 'received',
        executed: '—',
      });
      this.deps.emit({ type: 'inbox.received', time: new Date(now).toISOString(), agentId: record.id, thread: name });
      return name;
    });
  }

  /** The thread of this agent waiting in the inbox, if there is one. */
  pendingThreadOf(agentId: string): string | undefined {
    return threadNameOf(this.deps.layout.inboxDir, agentId);
  }

  /** Every thread in the inbox (and in `done/` with `all`), parsed, with its decision's standing. */
  list(all = false): InboxThread[] {
    const { inboxDir, inboxDoneDir } = this.deps.layout;
    const out = threadNames(inboxDir).map((name) => this.describe(this.read(inboxDir, name), join(inboxDir, name), false));
    if (all)
      out.push(...threadNames(inboxDoneDir).map((name) => this.describe(this.read(inboxDoneDir, name), join(inboxDoneDir, name), true)));
    return out.filter((thread): thread is InboxThread => thread !== undefined);
  }

  read(dir: string, name: string): ReadThread | undefined {
    const text = readThread(dir, name);
    if (text === undefined) return undefined;
    const parsed = parseThread(text);
    if (parsed.ok) return { name, ok: true, thread: parsed.value, text };
    return {
      name,
      ok: false,
      text,
      diagnostics: parsed.error.map((d) => ({ line: d.line, column: d.column, code: d.code, message: d.message })),
    };
  }

  private describe(read: ReadThread | undefined, path: string, done: boolean): InboxThread | undefined {
    if (read === undefined) return undefined;
    const agentId = agentOfThreadName(read.name);
    const base: InboxThread = { name: read.name, path, status: 'pending', ...(agentId === undefined ? {} : { agentId }) };
    if (!read.ok) return { ...base, status: done ? 'done' : 'invalid', diagnostics: read.diagnostics };
    const { thread } = read;
    Object.assign(base, { agentId: thread.from, title: thread.title, from: thread.from, branch: thread.branch, received: thread.received });
    if (thread.triage === undefined) return done ? { ...base, status: 'done' } : base;
    Object.assign(base, { decision: formatTriage(thread.triage.decision), actor: thread.triage.actor, timestamp: thread.triage.timestamp });
    const row = this.decisions.get(decisionKey(read.name, thread));
    if (row?.outcome !== undefined) base.outcome = row.outcome;
    if (row?.executed !== undefined) base.executed = row.executed;
    if (row?.rule !== undefined) base.rule = row.rule;
    if (row?.reason !== undefined) base.reason = row.reason;
    if (done) return { ...base, status: 'done' };
    if (row === undefined) return { ...base, status: 'decided' };
    if (row.state === 'claimed') return { ...base, status: 'processing' };
    const standing: Partial<Record<string, InboxThread['status']>> = {
      deferred: 'deferred',
      refused: 'refused',
      failed: 'failed',
      unhandled: 'unhandled',
    };
    return { ...base, status: standing[row.outcome ?? ''] ?? 'decided' };
  }

  /**
   * Records a decision a person made through `cairn accept`/`reject` (already carried out): the thread
   * gets its triage section, the log its line, and the thread moves to `done/`.
   */
  recordDirect(agentId: string, decision: Triage, actor: Actor, outcome: 'merged' | 'rejected', executed: string): void {
    const name = this.pendingThreadOf(agentId);
    if (name === undefined) return;
    const now = this.deps.clock();
    const stamp = threadTimestamp(now);
    const { inboxDir } = this.deps.layout;
    const text = readThread(inboxDir, name);
    if (text === undefined) return;
    const updated = withTriage(text, decision, actor, stamp);
    const parsed = parseThread(updated);
    if (!parsed.ok) return;
    const row: DecisionRow = {
      key: decisionKey(name, parsed.value),
      thread: name,
      agentId,
      decision: formatTriage(decision),
      actor,
      state: 'done',
      outcome,
      executed,
      moves: true,
      logged: false,
      approval: outcome === 'merged',
      at: now,
    };
    this.decisions.locked(() => this.decisions.put(row));
    writeAtomically(join(inboxDir, name), updated, { durable: true });
    this.finish(row, parsed.value.title);
  }

  /**
   * Writes a reviewer's decision into the reviewed agent's waiting thread. A decision already carried out
   * without closing the thread (refused, deferred, failed, unhandled) is history: it stays in the audit log
   * and the new one takes its place. Returns the thread's name, or why it could not be written (no waiting
   * thread, or one whose decision is still to be carried out).
   */
  writeDecision(agentId: string, decision: Triage, actor: Actor, note: string): { thread: string } | { why: string } {
    return this.decisions.locked(() => {
      const name = this.pendingThreadOf(agentId);
      if (name === undefined) return { why: `agent ${agentId} has no thread waiting in the inbox` };
      const read = this.read(this.deps.layout.inboxDir, name);
      if (read === undefined) return { why: `the thread ${name} is gone` };
      if (read.ok && read.thread.triage !== undefined) {
        const earlier = this.decisions.get(decisionKey(name, read.thread));
        if (earlier?.state !== 'done' || earlier.moves) {
          const held = `${formatTriage(read.thread.triage.decision)} by ${read.thread.triage.actor}`;
          return {
            why:
              earlier?.state === 'claimed'
                ? `the thread ${name} holds a decision being carried out now (${held})`
                : `the thread ${name} holds a decision not carried out yet (${held}); \`cairn inbox process\` carries it out`,
          };
        }
      }
      const updated = withTriage(read.text, decision, actor, threadTimestamp(this.deps.clock()), note);
      writeAtomically(join(this.deps.layout.inboxDir, name), updated, { durable: true });
      return { thread: name };
    });
  }

  /**
   * Completes a decision that was carried out: its log line (once, under the lock) and, for outcomes that
   * close the thread, the move to `done/`. Safe to repeat after a crash at any point.
   */
  finish(row: DecisionRow, source: string): { movedTo?: string } {
    return this.decisions.locked(() => {
      const current = this.decisions.get(row.key) ?? row;
      if (!current.logged) {
        appendAudit(this.deps.layout.auditDir, {
          at: this.deps.clock(),
          source,
          decision: current.decision,
          executed: current.executed ?? '—',
        });
        this.decisions.put({ ...current, logged: true });
      }
      if (!current.moves || !existsSync(join(this.deps.layout.inboxDir, current.thread))) return {};
      return { movedTo: moveToDone(this.deps.layout.inboxDir, this.deps.layout.inboxDoneDir, current.thread) };
    });
  }

  /** Reports a thread whose triage section cannot be read, once per content. */
  reportInvalid(read: Extract<ReadThread, { ok: false }>): InboxResult {
    const agentId = agentOfThreadName(read.name);
    const digest = createHash('sha256').update(read.text).digest('hex');
    const result: InboxResult = {
      thread: read.name,
      ...(agentId === undefined ? {} : { agentId }),
      outcome: 'invalid',
      executed: `✗ invalid: ${read.diagnostics.map((d) => `line ${d.line}, column ${d.column}: ${d.message}`).join('; ')}`,
      diagnostics: read.diagnostics,
    };
    if (this.reported.get(read.name) !== digest) {
      this.reported.set(read.name, digest);
      this.deps.emit({
        type: 'inbox.invalid',
        time: new Date(this.deps.clock()).toISOString(),
        ...(agentId === undefined ? {} : { agentId }),
        thread: read.name,
        diagnostics: read.diagnostics,
      });
    }
    return result;
  }

  private readonly reported = new Map<string, string>();
}

/** A decision's identity: the thread and its triage section as written. A new timestamp makes a new decision. */
export function decisionKey(name: string, thread: Thread): string {
  const triage = thread.triage!;
  return createHash('sha256')
    .update([name, formatTriage(triage.decision), triage.actor, triage.timestamp].join('\n'))
    .digest('hex')
    .slice(0, 32);
}

/** `.cairn/` with a .gitignore for what is machine-local: the threads and the log stay, if the team wants them shared. */
function prepareSettingsDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '# machine-local Cairn files\n*.tmp\n');
}
