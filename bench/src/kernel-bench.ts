import {
  EffectKernel,
  Journal,
  MemoryJournalStore,
  createWorld,
  ed25519PublicKey,
  receiptSigningBytes,
  signEd25519,
  verifyChain,
  type DefPolicyNode,
  type Receipt,
} from '@cairn/air';
import { nodeSignatureVerifier } from '@cairn/air/node';
import type { BenchRow } from './storage-bench.js';
import { median } from './measure.js';

const SECRET = new Uint8Array(32).fill(3);

/** Effects gated per second on one core (enqueue + policy + receipt verification + journal appends), and journal throughput. */
export function benchKernel(): BenchRow[] {
  const policy: DefPolicyNode = { $kind: 'defpolicy', name: 'cairn/default@1', rules: [{ when: { effect_kind: 'fs.*' }, decision: 'allow' }] };
  const N = 2000;
  const rates: number[] = [];
  let journalEntries = 0;
  let journal: Journal | undefined;
  for (let run = 0; run < 5; run++) {
    const store = new MemoryJournalStore();
    const opened = Journal.open(store);
    if (!opened.ok) throw new Error('journal');
    journal = opened.journal;
    const kernel = new EffectKernel({
      world: createWorld(),
      grants: [{ name: 'fs', cap: 'sys/fs@1', params: { read_prefixes: [''], write_prefixes: [''] }, budget: { bytes: 1e12 } }],
      policy,
      journal,
      adapters: { fs: { scheme: 'ed25519', key: ed25519PublicKey(SECRET) } },
      nowNs: () => 0n,
      verifySignature: nodeSignatureVerifier,
    });
    // Adapters sign outside the gate; the kernel's work is what is timed.
    const receipts: Receipt[] = [];
    const start = performance.now();
    let signMs = 0;
    for (let i = 0; i < N; i++) {
      const key = new Uint8Array(32);
      new DataView(key.buffer).setUint32(0, i);
      const admitted = kernel.enqueue({ kind: 'fs.write', params: { path: `src/f${i}.ts`, size: 100, content_ref: 'sha256:' + 'a'.repeat(64) }, cap: 'fs', idempotencyKey: key, origin: { kind: 'plan', name: 'cairn/agent@1' } });
      if (!admitted.ok) throw new Error(admitted.denial.reason);
      const signStart = performance.now();
      const body = { intentHash: admitted.intent.intentHash, adapterId: 'fs', status: 'ok' as const, receipt: { path: `src/f${i}.ts`, size: 100, created: true } };
      const receipt = { ...body, sig: signEd25519(SECRET, receiptSigningBytes(body)) };
      signMs += performance.now() - signStart;
      receipts.push(receipt);
      const accepted = kernel.submitReceipt(receipt);
      if (!accepted.ok) throw new Error(accepted.reason);
    }
    const gateMs = performance.now() - start - signMs;
    rates.push(N / (gateMs / 1000));
    journalEntries = journal.entries().length;
  }
  const entries = journal!.entries();
  const verifyTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    if (verifyChain(entries) !== undefined) throw new Error('chain broken');
    verifyTimes.push(performance.now() - start);
  }
  const appendTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const opened = Journal.open(new MemoryJournalStore());
    if (!opened.ok) throw new Error('journal');
    const start = performance.now();
    for (let n = 0; n < 10_000; n++) opened.journal.append('EffectQueued', { intent_hash: 'sha256:' + 'b'.repeat(64), kind: 'fs.write', n });
    appendTimes.push(performance.now() - start);
  }
  return [
    { tree: 'AIR kernel', measure: `effects gated (enqueue, policy, Ed25519 receipt verify, ${journalEntries / N} journal appends each)`, unit: 'effects/s', cairn: median(rates), others: {}, goal: '>= 5,000/s on one core' },
    { tree: 'AIR kernel', measure: 'journal append', unit: 'entries/s', cairn: 10_000 / (median(appendTimes) / 1000), others: {}, goal: '' },
    { tree: 'AIR kernel', measure: 'journal verify (hash chain)', unit: 'entries/s', cairn: entries.length / (median(verifyTimes) / 1000), others: {}, goal: '' },
  ];
}
