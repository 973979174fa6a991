import { EffectKernel, receiptFromRecord, type CapGrantJson, type Journal, type JournalEntry } from '@cairn/air';
import { nodeSignatureVerifier } from '@cairn/air/node';
import { FS_ADAPTER, LLM_ADAPTER, type ReceiptSigner } from '../adapters/receipt-signer.js';
import { FS_GRANT, LLM_GRANT } from '../governance/default-manifest.js';
import type { CompiledGovernance } from '../governance/compile.js';

/** What an agent's journal says it spent on governed effects. */
export interface JournalSpend {
  tokens: number;
  bytes: number;
}

/** Sums the accepted receipts of a journal: model tokens and bytes written. */
export function spentFromJournal(entries: Iterable<JournalEntry>): JournalSpend {
  const spent: JournalSpend = { tokens: 0, bytes: 0 };
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
  }
}

/**
 * The kernel for one stretch of an agent's work, on its journal. Budgets start from what the journal says
 * was already spent, so a revision tomorrow, or a CLI run after a daemon's, cannot spend them twice.
 * `nowNs` is the run's recorded clock, which a replay sets to the same value.
 */
export function createAgentKernel(
  governance: CompiledGovernance,
  journal: Journal,
  signer: ReceiptSigner,
  spent: JournalSpend,
  nowNs: () => bigint,
): EffectKernel {
  const grants: CapGrantJson[] = governance.grants.map((grant) => {
    if (grant.budget === undefined) return grant;
    const budget = { ...grant.budget };
    if (grant.name === LLM_GRANT && budget.tokens !== undefined) budget.tokens = Math.max(0, budget.tokens - spent.tokens);
    if (grant.name === FS_GRANT && budget.bytes !== undefined) budget.bytes = Math.max(0, budget.bytes - spent.bytes);
    return { ...grant, budget };
  });
  return new EffectKernel({
    world: governance.world,
    grants,
    policy: governance.policy,
    journal,
    adapters: signer.adapterKeys(),
    nowNs,
    verifySignature: nodeSignatureVerifier,
  });
}
