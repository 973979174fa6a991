import { type JournalEntry, receiptFromRecord, verifyChain } from '@cairn/air';
import type { JournalRow } from '@cairn/api';
import { runStartsOf, SCHEMAS } from './journal-entries.js';

type Body = Record<string, unknown>;

/**
 * An agent's journal as rows a person reads: one row per effect (its decision, path, bytes or tokens), per
 * denial, per run started and ended, per log line and submission. Times are the run's recorded clock.
 */
export function journalRows(entries: readonly JournalEntry[]): JournalRow[] {
  const rows: JournalRow[] = [];
  const byIntent = new Map<string, JournalRow>();
  // Rows before the first run carry that run's clock: the journal records no wall time of its own.
  let clock = firstRunClock(entries);
  const time = () => new Date(clock).toISOString();
  for (const entry of entries) {
    const body = entry.body as Body;
    const row = (fields: Omit<JournalRow, 'seq' | 'time' | 'kind'> & { kind?: string }): JournalRow => {
      const made: JournalRow = { seq: entry.seq, time: time(), kind: fields.kind ?? entry.kind, ...fields };
      rows.push(made);
      return made;
    };
    switch (entry.kind) {
      case 'EffectQueued': {
        const made = row({ kind: 'effect', effect: String(body.kind), decision: 'allowed' });
        byIntent.set(String(body.intent_hash), made);
        break;
      }
      case 'EffectDenied':
        row({
          kind: 'denied',
          effect: String(body.kind),
          decision: 'denied',
          ...(typeof body.subject === 'string' ? { path: body.subject } : {}),
          detail: `${String(body.stage)}: ${String(body.reason)}`,
        });
        break;
      case 'PolicyDecisionRecorded':
        if (body.decision === 'deny')
          row({ kind: 'denied', decision: 'denied', detail: `policy ${String(body.policy_name)} rule ${String(body.rule_index)}` });
        break;
      case 'ReceiptAppended': {
        const receipt = receiptFromRecord(body.submitted as never);
        const target = byIntent.get(String(body.intent_hash));
        if (receipt === undefined || target === undefined) break;
        const payload = receipt.receipt as Body;
        target.decision = receipt.status;
        if (typeof payload.path === 'string')
          target.path = payload.to === undefined ? payload.path : `${payload.path} -> ${String(payload.to)}`;
        if (typeof payload.op === 'string' && payload.op !== 'write') target.effect = `${target.effect} ${payload.op}`;
        if (payload.size !== undefined && target.effect?.startsWith('fs.write')) target.bytes = Number(payload.size);
        const usage = payload.token_usage as { prompt?: unknown; completion?: unknown } | undefined;
        if (usage !== undefined) target.tokens = Number(usage.prompt ?? 0) + Number(usage.completion ?? 0);
        if (receipt.status === 'error') target.detail = String(payload.error ?? '');
        break;
      }
      case 'ReceiptRejected':
        row({ kind: 'receipt-rejected', decision: 'refused', detail: String(body.reason) });
        break;
      case 'BudgetExceeded':
        row({
          kind: 'budget',
          decision: 'exceeded',
          detail: `${String(body.grant_name)} ${String(body.dimension)} balance ${String(body.new_balance)}`,
        });
        break;
      case 'DomainEventAppended': {
        const value = (body.value ?? {}) as Body;
        switch (body.schema) {
          case SCHEMAS.agentStarted:
            row({ kind: 'start', detail: String(value.task ?? '') });
            break;
          case SCHEMAS.revisionStarted:
            row({ kind: 'revision', detail: String(value.feedback ?? '') });
            break;
          case SCHEMAS.runStarted:
            clock = Number(value.clock_ms ?? clock);
            rows.push({
              seq: entry.seq,
              time: time(),
              kind: 'run',
              decision: 'started',
              detail: `run ${String(value.run)} (${String(value.lang)})`,
            });
            break;
          case SCHEMAS.runEnded:
            row({
              kind: 'run',
              decision: String(value.status),
              detail: `run ${String(value.run)}: ${String(value.calls)} calls${value.error === undefined ? '' : `; ${String(value.error)}`}`,
            });
            break;
          case SCHEMAS.runRolledBack:
            row({ kind: 'run', decision: 'rolled back', detail: `run ${String(value.run)}` });
            break;
          case SCHEMAS.toolCalled:
            row({
              kind: 'tool',
              effect: String(value.tool),
              decision: 'ok',
              ...(value.message === undefined && value.summary === undefined ? {} : { detail: String(value.message ?? value.summary) }),
            });
            break;
          case SCHEMAS.toolRefused:
            row({ kind: 'denied', effect: String(value.tool), decision: 'refused', detail: String(value.reason) });
            break;
          case SCHEMAS.programExtracted:
            row({
              kind: 'program',
              decision: value.problem === undefined ? 'extracted' : 'unusable',
              ...(value.problem === undefined ? {} : { detail: String(value.problem) }),
            });
            break;
          case SCHEMAS.programRefused:
            row({ kind: 'program', decision: 'refused', detail: String(value.report ?? '').split('\n')[0]! });
            break;
          default:
            break;
        }
        break;
      }
      default:
        break;
    }
  }
  return rows;
}

function firstRunClock(entries: readonly JournalEntry[]): number {
  return runStartsOf(entries)[0]?.clockMs ?? 0;
}

/** Verifies the chain of a journal and, when given, that it reaches the recorded head. */
export function verifyJournal(
  entries: readonly JournalEntry[],
  head: { hash: string; length: number } | undefined,
): { seq: number; reason: string } | undefined {
  return verifyChain(entries, head as never) ?? undefined;
}
