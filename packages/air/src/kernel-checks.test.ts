import { describe, expect, it } from 'vitest';
import { Journal, MemoryJournalStore } from './journal.js';
import { type AdapterKey, EffectKernel, type EffectRequest, type Receipt, receiptSigningBytes } from './kernel.js';
import type { CapGrantJson, DefPolicyNode } from './nodes.js';
import { hmacSha256 } from './signing.js';
import { createWorld } from './world.js';

const hmacKey = new Uint8Array(32).fill(5);
const adapters: Record<string, AdapterKey> = { 'cairn.check': { scheme: 'hmac-sha256', key: hmacKey } };
const grants: CapGrantJson[] = [{ name: 'check', cap: 'sys/check@1', params: { checks: ['test', 'lint'] }, budget: { ms: 10_000 } }];
const policy: DefPolicyNode = { $kind: 'defpolicy', name: 'p@1', rules: [{ when: { effect_kind: 'check.run' }, decision: 'allow' }] };
const REF = `sha256:${'c'.repeat(64)}`;

function setup() {
  const opened = Journal.open(new MemoryJournalStore());
  if (!opened.ok) throw new Error('journal');
  return new EffectKernel({ world: createWorld(), grants, policy, journal: opened.journal, adapters, nowNs: () => 1n });
}

const run = (name: string, timeoutMs: number, n: number): EffectRequest => ({
  kind: 'check.run',
  params: { name, proposal_ref: REF, timeout_ms: timeoutMs },
  cap: 'check',
  idempotencyKey: new Uint8Array(32).fill(n),
  origin: { kind: 'agent', name: 'a1' },
});

function receipt(intentHash: string, durationMs: number): Receipt {
  const body: Omit<Receipt, 'sig'> = {
    intentHash: intentHash as Receipt['intentHash'],
    adapterId: 'cairn.check',
    status: 'ok',
    receipt: {
      name: 'test',
      status: 'failed',
      exit_code: 1,
      duration_ms: durationMs,
      output_ref: REF,
      output_size: 12,
      truncated: false,
      view: 'overlay',
      sealed: true,
    },
  };
  return { ...body, sig: hmacSha256(hmacKey, receiptSigningBytes(body)) };
}

describe('the check capability', () => {
  it('admits only the checks its grant names', () => {
    const kernel = setup();
    expect(kernel.enqueue(run('test', 1000, 1)).ok).toBe(true);
    const denied = kernel.enqueue(run('deploy', 1000, 2));
    expect(denied.ok).toBe(false);
    if (!denied.ok) expect(denied.denial).toMatchObject({ stage: 'constraint', reason: 'check "deploy" is not in the grant\'s checks' });
  });

  it('spends wall time from the receipts, and refuses a timeout longer than what is left', () => {
    const kernel = setup();
    const first = kernel.enqueue(run('test', 8_000, 1));
    if (!first.ok) throw new Error('denied');
    expect(kernel.submitReceipt(receipt(first.intent.intentHash, 7_000))).toEqual({ ok: true });
    expect(kernel.remaining('check')?.ms).toBe(3_000n);
    const long = kernel.enqueue(run('test', 5_000, 2));
    expect(long.ok).toBe(false);
    if (!long.ok)
      expect(long.denial).toMatchObject({ stage: 'budget', reason: 'a timeout of 5000 ms exceeds the 3000 ms left on "check"' });
    const short = kernel.enqueue(run('lint', 3_000, 3));
    if (!short.ok) throw new Error('denied');
    expect(kernel.submitReceipt(receipt(short.intent.intentHash, 3_000))).toEqual({ ok: true });
    const none = kernel.enqueue(run('lint', 1, 4));
    if (!none.ok) expect(none.denial.reason).toBe('no wall time is left on "check"');
    else throw new Error('admitted');
  });
});
