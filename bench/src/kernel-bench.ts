import { createHmac, createPublicKey, verify as cryptoVerify } from 'node:crypto';
import {
  createWorld,
  type DefPolicyNode,
  EffectKernel,
  ed25519PublicKey,
  Journal,
  MemoryJournalStore,
  receiptSigningBytes,
  signEd25519,
  verifyChain,
  verifyReceiptSignature,
} from '@cairn/air';
import { nodeSignatureVerifier } from '@cairn/air/node';
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { median, scaled } from './measure.js';
import type { BenchRow } from './storage-bench.js';

const SECRET = new Uint8Array(32).fill(3);

/** Effects gated per second on one core (enqueue + policy + receipt verification + journal appends), and journal throughput. */
export function benchKernel(): BenchRow[] {
  const policy: DefPolicyNode = {
    $kind: 'defpolicy',
    name: 'cairn/default@1',
    rules: [{ when: { effect_kind: 'fs.*' }, decision: 'allow' }],
  };
  const N = 2000;
  let journalEntries = 0;
  let journal: Journal | undefined;
  /** Effects gated per second with receipts under `scheme`; signing happens outside the timed gate. */
  const gate = (scheme: 'ed25519' | 'hmac-sha256'): number => {
    const rates: number[] = [];
    for (let run = 0; run < scaled(5); run++) {
      const opened = Journal.open(new MemoryJournalStore());
      if (!opened.ok) throw new Error('journal');
      journal = opened.journal;
      const kernel = new EffectKernel({
        world: createWorld(),
        grants: [{ name: 'fs', cap: 'sys/fs@1', params: { read_prefixes: [''], write_prefixes: [''] }, budget: { bytes: 1e12 } }],
        policy,
        journal,
        adapters: { fs: scheme === 'ed25519' ? { scheme, key: ed25519PublicKey(SECRET) } : { scheme, key: SECRET } },
        nowNs: () => 0n,
        verifySignature: nodeSignatureVerifier,
      });
      const start = performance.now();
      let signMs = 0;
      for (let i = 0; i < N; i++) {
        const key = new Uint8Array(32);
        new DataView(key.buffer).setUint32(0, i);
        const admitted = kernel.enqueue({
          kind: 'fs.write',
          params: { op: 'write', path: `src/f${i}.ts`, size: 100, content_ref: 'sha256:' + 'a'.repeat(64) },
          cap: 'fs',
          idempotencyKey: key,
          origin: { kind: 'plan', name: 'cairn/agent@1' },
        });
        if (!admitted.ok) throw new Error(admitted.denial.reason);
        const signStart = performance.now();
        const body = {
          intentHash: admitted.intent.intentHash,
          adapterId: 'fs',
          status: 'ok' as const,
          receipt: { op: 'write', path: `src/f${i}.ts`, size: 100, created: true },
        };
        const bytes = receiptSigningBytes(body);
        const sig = scheme === 'ed25519' ? signEd25519(SECRET, bytes) : new Uint8Array(createHmac('sha256', SECRET).update(bytes).digest());
        signMs += performance.now() - signStart;
        const accepted = kernel.submitReceipt({ ...body, sig });
        if (!accepted.ok) throw new Error(accepted.reason);
      }
      rates.push(N / ((performance.now() - start - signMs) / 1000));
      journalEntries = journal.entries().length;
    }
    return median(rates);
  };
  const ed25519Rate = gate('ed25519');
  const hmacRate = gate('hmac-sha256');
  const entries = journal!.entries();
  const verifyTimes: number[] = [];
  for (let i = 0; i < scaled(5); i++) {
    const start = performance.now();
    if (verifyChain(entries) !== undefined) throw new Error('chain broken');
    verifyTimes.push(performance.now() - start);
  }
  const appendTimes: number[] = [];
  for (let i = 0; i < scaled(5); i++) {
    const opened = Journal.open(new MemoryJournalStore());
    if (!opened.ok) throw new Error('journal');
    const start = performance.now();
    for (let n = 0; n < scaled(10_000); n++)
      opened.journal.append('EffectQueued', { intent_hash: 'sha256:' + 'b'.repeat(64), kind: 'fs.write', n });
    appendTimes.push(performance.now() - start);
  }
  return [
    benchVerify(),
    {
      tree: 'AIR kernel',
      measure: `effects gated (enqueue, policy, Ed25519 receipt verify, ${journalEntries / N} journal appends each)`,
      unit: 'effects/s',
      cairn: ed25519Rate,
      others: {},
      goal: '>= 5,000/s on one core',
    },
    {
      tree: 'AIR kernel',
      measure: `effects gated as the orchestrator runs them (HMAC-SHA-256 receipts, ${journalEntries / N} journal appends each)`,
      unit: 'effects/s',
      cairn: hmacRate,
      others: {},
      goal: '>= 10,000/s on one core',
    },
    {
      tree: 'AIR kernel',
      measure: 'journal append',
      unit: 'entries/s',
      cairn: 10_000 / (median(appendTimes) / 1000),
      others: {},
      goal: '',
    },
    {
      tree: 'AIR kernel',
      measure: 'journal verify (hash chain)',
      unit: 'entries/s',
      cairn: entries.length / (median(verifyTimes) / 1000),
      others: {},
      goal: '',
    },
  ];
}

/**
 * One Ed25519 receipt verification under AIR's strict rule (canonical, cofactorless, no small order), in pure
 * JavaScript and on OpenSSL, against the libraries' own verification without those checks.
 */
function benchVerify(): BenchRow {
  ed.hashes.sha512 = sha512;
  const public_ = ed25519PublicKey(SECRET);
  const messages = Array.from({ length: 200 }, (_, i) => new TextEncoder().encode(`receipt ${i} ${'x'.repeat(200)}`));
  const signatures = messages.map((m) => signEd25519(SECRET, m));
  const key = { scheme: 'ed25519' as const, key: public_ };
  const spki = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), public_]),
    format: 'der',
    type: 'spki',
  });
  const time = (verify: (m: Uint8Array, s: Uint8Array) => boolean): number => {
    const runs: number[] = [];
    for (let r = 0; r < scaled(5); r++) {
      const start = performance.now();
      for (let i = 0; i < messages.length; i++)
        if (!verify(messages[i]!, signatures[i]!)) throw new Error('a genuine signature did not verify');
      runs.push(((performance.now() - start) / messages.length) * 1000);
    }
    return median(runs);
  };
  const pure = time((m, s) => verifyReceiptSignature(key, m, s));
  return {
    tree: 'AIR kernel',
    measure: 'Ed25519 receipt verify, strict rule (pure JS)',
    unit: 'µs',
    cairn: pure,
    others: {
      '@noble/ed25519 verify (zip215: false)': time((m, s) => ed.verify(s, m, public_, { zip215: false })),
      'strict rule on OpenSSL (@cairn/air/node)': time((m, s) => nodeSignatureVerifier(key, m, s)),
      'bare node:crypto verify': time((m, s) => cryptoVerify(null, m, spki, s)),
    },
    goal: 'strict checks cost little over the library verify',
  };
}
