import { type CapGrantJson, EffectKernel, type Journal } from '@cairn/air';
import { nodeSignatureVerifier } from '@cairn/air/node';
import type { JournalSpend } from '@cairn/workspace';
import type { CompiledGovernance } from './compile.js';
import { CHECK_GRANT, FS_GRANT, LLM_GRANT } from './default-manifest.js';
import type { ReceiptSigner } from './receipt-signer.js';

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
    if (grant.name === CHECK_GRANT && budget.ms !== undefined) budget.ms = Math.max(0, budget.ms - spent.checkMs);
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
