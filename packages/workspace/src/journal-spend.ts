import { type JournalEntry, receiptFromRecord } from '@cairn/air';

/** The adapters that sign the receipts of file effects, of model effects and of checks. */
export const FS_ADAPTER = 'cairn.fs';
export const LLM_ADAPTER = 'cairn.llm';
export const CHECK_ADAPTER = 'cairn.check';

/** What an agent's journal says it spent on governed effects. */
export interface JournalSpend {
  tokens: number;
  bytes: number;
  /** Wall time of checks (ms). */
  checkMs: number;
}

/** Sums the accepted receipts of a journal: model tokens, bytes written, the wall time of checks. */
export function spentFromJournal(entries: Iterable<JournalEntry>): JournalSpend {
  const spent: JournalSpend = { tokens: 0, bytes: 0, checkMs: 0 };
  for (const entry of entries) addSpend(spent, entry);
  return spent;
}

/** Adds what one journal entry spent (an ok receipt: a model's tokens, a write's bytes) to a tally. */
export function addSpend(spent: JournalSpend, entry: JournalEntry): void {
  if (entry.kind !== 'ReceiptAppended') return;
  const receipt = receiptFromRecord((entry.body as { submitted?: unknown }).submitted as never);
  if (receipt === undefined || receipt.status !== 'ok') return;
  const payload = receipt.receipt as Record<string, unknown>;
  if (receipt.adapterId === LLM_ADAPTER) {
    const usage = payload.token_usage as { prompt?: unknown; completion?: unknown } | undefined;
    spent.tokens += Number(usage?.prompt ?? 0) + Number(usage?.completion ?? 0);
  } else if (receipt.adapterId === FS_ADAPTER && payload.op === 'write') {
    spent.bytes += Number(payload.size ?? 0);
  } else if (receipt.adapterId === CHECK_ADAPTER) {
    spent.checkMs += Number(payload.duration_ms ?? 0);
  }
}
