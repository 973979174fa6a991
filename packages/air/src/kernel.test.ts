import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Journal, type JournalEntry, MemoryJournalStore, verifyChain } from './journal.js';
import { type AdapterKey, EffectKernel, type EffectRequest, intentHash, type Receipt, receiptSigningBytes } from './kernel.js';
import type { CapGrantJson, DefPolicyNode } from './nodes.js';
import { decidePolicy, type EffectOrigin } from './policy.js';
import { ed25519PublicKey, hmacSha256, signEd25519 } from './signing.js';
import { createWorld } from './world.js';

const OUTPUT_REF = `sha256:${'0a'.repeat(32)}`;

const secret = new Uint8Array(32).fill(7);
const hmacKey = new Uint8Array(32).fill(9);
const adapters: Record<string, AdapterKey> = {
  'llm.ollama': { scheme: 'ed25519', key: ed25519PublicKey(secret) },
  'fs.overlay': { scheme: 'hmac-sha256', key: hmacKey },
};
const grants: CapGrantJson[] = [
  {
    name: 'llm',
    cap: 'sys/llm.basic@1',
    params: { models: ['qwen2.5-coder:7b'], max_tokens_max: 4000, temperature_max: '1.0' },
    budget: { tokens: 1000 },
  },
  {
    name: 'fs_src',
    cap: 'sys/fs@1',
    params: { read_prefixes: [''], write_prefixes: ['src'], max_write_bytes: 1000 },
    budget: { bytes: 2500 },
  },
  { name: 'web', cap: 'sys/http.out@1', params: { hosts: ['*.example.com'], verbs: ['GET'] } },
  { name: 'old', cap: 'sys/timer@1', params: {}, expiry_ns: 100 },
];
const policy: DefPolicyNode = {
  $kind: 'defpolicy',
  name: 'cairn/default@1',
  rules: [
    { when: { effect_kind: 'llm.generate', origin_kind: 'reducer' }, decision: 'deny' },
    { when: { effect_kind: 'fs.*' }, decision: 'allow' },
    { when: { effect_kind: 'llm.generate' }, decision: 'allow' },
    { when: { effect_kind: 'http.request', host: 'api.example.com' }, decision: 'allow' },
  ],
};
const plan = { kind: 'plan' as const, name: 'cairn/agent@1' };
const key = (n: number) => new Uint8Array(32).fill(n);

function setup() {
  const opened = Journal.open(new MemoryJournalStore());
  if (!opened.ok) throw new Error('journal');
  const kernel = new EffectKernel({ world: createWorld(), grants, policy, journal: opened.journal, adapters, nowNs: () => 1_000n });
  return { kernel, journal: opened.journal };
}

const llm = (maxTokens: number, origin: EffectOrigin = plan): EffectRequest => ({
  kind: 'llm.generate',
  params: {
    provider: 'ollama',
    model: 'qwen2.5-coder:7b',
    temperature: '0.2',
    max_tokens: maxTokens,
    input_ref: 'sha256:' + 'a'.repeat(64),
  },
  cap: 'llm',
  idempotencyKey: key(maxTokens % 256),
  origin,
});
const write = (path: string, size: number): EffectRequest => ({
  kind: 'fs.write',
  params: { op: 'write', path, size, content_ref: 'sha256:' + 'b'.repeat(64) },
  cap: 'fs_src',
  idempotencyKey: key(size % 256),
  origin: plan,
});

function sign(receipt: Omit<Receipt, 'sig'>): Receipt {
  const bytes = receiptSigningBytes(receipt);
  const sig = receipt.adapterId === 'fs.overlay' ? hmacSha256(hmacKey, bytes) : signEd25519(secret, bytes);
  return { ...receipt, sig };
}

const web = (url: string, n = 5): EffectRequest => ({
  kind: 'http.request',
  params: { method: 'GET', url, headers: {} },
  cap: 'web',
  idempotencyKey: key(n),
  origin: plan,
});

describe('http.request: the host and path checked are the ones fetch goes to', () => {
  const prefixed: CapGrantJson[] = [
    ...grants.filter((g) => g.name !== 'web'),
    { name: 'web', cap: 'sys/http.out@1', params: { hosts: ['*.example.com'], verbs: ['GET'], path_prefixes: ['/v1/'] } },
  ];
  const open = (rules = policy.rules) => {
    const opened = Journal.open(new MemoryJournalStore());
    if (!opened.ok) throw new Error('journal');
    return {
      kernel: new EffectKernel({
        world: createWorld(),
        grants: prefixed,
        policy: { ...policy, rules: [...rules, { when: { effect_kind: 'http.request', host: 'example.com' }, decision: 'allow' }] },
        journal: opened.journal,
        adapters,
        nowNs: () => 1_000n,
      }),
      journal: opened.journal,
    };
  };

  it.each([
    ['a backslash before userinfo', 'https://evil.com\\@api.example.com/v1/x'],
    ['userinfo', 'https://user:pass@api.example.com/v1/x'],
    ['userinfo naming an allowed host', 'https://api.example.com@evil.com/v1/x'],
    ['.. out of the prefix', 'https://api.example.com/v1/../admin'],
    ['%2e%2e out of the prefix', 'https://api.example.com/v1/%2e%2e/admin'],
    ['mixed-case %2E. out of the prefix', 'https://api.example.com/v1/%2E./admin'],
    ['backslash dot segments', 'https://api.example.com/v1\\..\\admin'],
    ['a host that only ends like an allowed one', 'https://evilexample.com/v1/x'],
    ['another scheme', 'file:///etc/passwd'],
    ['not a URL', 'api.example.com/v1/x'],
  ])('refuses %s', (_what, url) => {
    const { kernel } = open();
    const result = kernel.enqueue(web(url));
    expect(result.ok, url).toBe(false);
    if (!result.ok) expect(['constraint', 'policy']).toContain(result.denial.stage);
  });

  it('admits the normal form and puts it in the intent: case, default port, dot segments inside the prefix', () => {
    const { kernel, journal } = open();
    const result = kernel.enqueue(web('HTTPS://API.Example.COM:443/v1/a/./b/../c?q=1'));
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect((result.intent.params as { url: string }).url).toBe('https://api.example.com/v1/a/c?q=1');
      expect(result.intent.intentHash).toBe(intentHash('http.request', result.intent.params, 'web', key(5)));
    }
    expect(journal.entries().at(-1)!.kind).toBe('EffectQueued');
  });

  it('the policy host matches the parsed host, not the text', () => {
    const { kernel } = open([]);
    expect(kernel.enqueue(web('https://api.example.com/v1/x', 6)).ok).toBe(true);
    const tricked = kernel.enqueue(web('https://evil.com\\@api.example.com/v1/x', 7));
    expect(tricked.ok).toBe(false);
    expect(
      decidePolicy(
        { $kind: 'defpolicy', name: 'p', rules: [{ when: { host: 'example.com' }, decision: 'allow' }] },
        { kind: 'http.request', capName: 'web', params: { url: 'https://x@evil.com/' }, origin: plan },
      ).decision,
    ).toBe('deny');
    expect(
      decidePolicy(
        { $kind: 'defpolicy', name: 'p', rules: [{ when: { host: 'example.com' }, decision: 'allow' }] },
        { kind: 'http.request', capName: 'web', params: { url: 'https://evil.com\\.example.com/' }, origin: plan },
      ).decision,
    ).toBe('deny');
  });

  it('EffectQueued carries instance_id (AIR v1 §15), null when the origin has none', () => {
    const { kernel, journal } = setup();
    kernel.enqueue({ ...llm(10), instanceId: 'run-1' });
    kernel.enqueue(llm(11));
    const queued = journal
      .entries()
      .filter((e) => e.kind === 'EffectQueued')
      .map((e) => e.body as Record<string, unknown>);
    expect(queued.map((b) => b.instance_id)).toEqual(['run-1', null]);
    for (const body of queued)
      for (const field of ['instance_id', 'intent_hash', 'origin_kind', 'origin_name']) expect(body).toHaveProperty(field);
  });
});

describe('effect kernel: enforcement in order', () => {
  it('admits an allowed effect, journaling the policy decision and the queueing', () => {
    const { kernel, journal } = setup();
    const result = kernel.enqueue(llm(400));
    expect(result.ok).toBe(true);
    expect(
      journal.entries().map((e) => [e.kind, (e.body as Record<string, unknown>).decision ?? (e.body as Record<string, unknown>).kind]),
    ).toEqual([
      ['PolicyDecisionRecorded', 'allow'],
      ['EffectQueued', 'llm.generate'],
    ]);
    if (result.ok) expect(result.intent.intentHash).toBe(intentHash('llm.generate', result.intent.params, 'llm', key(400 % 256)));
  });

  it.each([
    ['an unknown kind', { ...llm(1), kind: 'email.send' }, 'unknown-kind', 'unknown effect kind "email.send"'],
    ['params that do not fit the schema', { ...llm(1), params: { model: 'x' } }, 'params', ''],
    ['a missing grant', { ...llm(1), cap: 'nope' }, 'grant', 'no grant named "nope"'],
    [
      'an expired grant',
      { kind: 'timer.set', params: { deliver_at_ns: 5 }, cap: 'old', idempotencyKey: key(1), origin: plan },
      'expired',
      'grant "old" has expired',
    ],
    [
      'a grant of another capability type',
      { ...write('src/a.ts', 1), cap: 'llm' },
      'cap-type',
      'grant "llm" is a llm.basic capability; fs.write needs fs',
    ],
    [
      'a model outside the grant',
      { ...llm(1), params: { ...llm(1).params, model: 'gpt-4o' } },
      'constraint',
      'model "gpt-4o" is not in the grant\'s models',
    ],
    ['too many tokens for the grant', llm(5000), 'constraint', "max_tokens 5000 exceeds the grant's 4000"],
    [
      'too hot a temperature',
      { ...llm(1), params: { ...llm(1).params, temperature: '1.5' } },
      'constraint',
      "temperature 1.5 exceeds the grant's 1.0",
    ],
    ['a write outside the write prefixes', write('docs/a.md', 10), 'constraint', '"docs/a.md" is outside the grant\'s write prefixes'],
    [
      'a path escaping the project',
      write('src/../../etc/passwd', 10),
      'constraint',
      'path "src/../../etc/passwd" is not a project-relative path (absolute paths, "..", NUL and backslashes are refused)',
    ],
    [
      'an absolute path',
      write('/src/a.ts', 10),
      'constraint',
      'path "/src/a.ts" is not a project-relative path (absolute paths, "..", NUL and backslashes are refused)',
    ],
    ['a write over the byte ceiling', write('src/big.bin', 5000), 'constraint', "writing 5000 bytes exceeds the grant's 1000"],
    [
      'a host outside the grant',
      {
        kind: 'http.request',
        params: { method: 'GET', url: 'https://evil.com/x', headers: {} },
        cap: 'web',
        idempotencyKey: key(2),
        origin: plan,
      },
      'constraint',
      'host "evil.com" is not in the grant\'s hosts',
    ],
    ['more tokens than the budget has', llm(1500), 'budget', 'max_tokens 1500 exceeds the 1000 tokens left on "llm"'],
    ['a reducer asking for an LLM (policy rule 0)', llm(10, { kind: 'reducer', name: 'cairn/r@1' }), 'policy', 'policy rule 0 denies it'],
    [
      'no rule matching (default deny)',
      {
        kind: 'http.request',
        params: { method: 'GET', url: 'https://www.example.com/', headers: {} },
        cap: 'web',
        idempotencyKey: key(3),
        origin: plan,
      },
      'policy',
      'no policy rule allows it (default deny)',
    ],
  ])('denies %s', (_what, request, stage, reason) => {
    const { kernel, journal } = setup();
    const result = kernel.enqueue(request as EffectRequest);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.denial.stage).toBe(stage);
      if (reason) expect(result.denial.reason).toBe(reason);
    }
    const last = journal.entries().at(-1)!;
    expect(['EffectDenied', 'PolicyDecisionRecorded']).toContain(last.kind);
  });
});

describe('receipts', () => {
  it('a signed, bound receipt is appended and settles the budget; BudgetExceeded exhausts the grant', () => {
    const { kernel, journal } = setup();
    const first = kernel.enqueue(llm(900));
    if (!first.ok) throw new Error(first.denial.reason);
    const receipt = sign({
      intentHash: first.intent.intentHash,
      adapterId: 'llm.ollama',
      status: 'ok',
      receipt: { output_ref: OUTPUT_REF, token_usage: { prompt: 700, completion: 500 }, cost_cents: 0, provider_id: 'ollama' },
    });
    expect(kernel.submitReceipt(receipt)).toEqual({ ok: true });
    expect(
      journal
        .entries()
        .map((e) => e.kind)
        .slice(-2),
    ).toEqual(['ReceiptAppended', 'BudgetExceeded']);
    expect(journal.entries().at(-1)!.body).toEqual({ grant_name: 'llm', dimension: 'tokens', delta: 1200n, new_balance: -200n });
    expect(kernel.remaining('llm')).toMatchObject({ tokens: -200n, exhausted: true });
    expect(kernel.enqueue(llm(1))).toMatchObject({ ok: false, denial: { stage: 'exhausted' } });
  });

  it('HMAC receipts from a registered adapter work too', () => {
    const { kernel } = setup();
    const admitted = kernel.enqueue(write('src/a.ts', 800));
    if (!admitted.ok) throw new Error(admitted.denial.reason);
    expect(
      kernel.submitReceipt(
        sign({
          intentHash: admitted.intent.intentHash,
          adapterId: 'fs.overlay',
          status: 'ok',
          receipt: { op: 'write', path: 'src/a.ts', size: 800, created: true },
        }),
      ),
    ).toEqual({ ok: true });
    expect(kernel.remaining('fs_src')).toMatchObject({ bytes: 1700n, exhausted: false });
  });

  it('forged, mis-bound, unknown-adapter and replayed receipts are refused and journaled, never applied', () => {
    const { kernel, journal } = setup();
    const admitted = kernel.enqueue(llm(10));
    if (!admitted.ok) throw new Error(admitted.denial.reason);
    const good = sign({
      intentHash: admitted.intent.intentHash,
      adapterId: 'llm.ollama',
      status: 'ok',
      receipt: { output_ref: OUTPUT_REF, token_usage: { prompt: 1, completion: 1 }, cost_cents: 0, provider_id: 'p' },
    });
    const forged = { ...good, receipt: { ...(good.receipt as object), token_usage: { prompt: 0, completion: 0 } } };
    expect(kernel.submitReceipt(forged)).toEqual({ ok: false, reason: 'the signature does not verify' });
    expect(kernel.submitReceipt(sign({ ...good, intentHash: `sha256:${'c'.repeat(64)}` }))).toEqual({
      ok: false,
      reason: 'no admitted intent has this hash',
    });
    expect(kernel.submitReceipt({ ...good, adapterId: 'mallory' })).toEqual({ ok: false, reason: 'unknown adapter "mallory"' });
    expect(kernel.submitReceipt(good)).toEqual({ ok: true });
    expect(kernel.submitReceipt(good)).toEqual({ ok: false, reason: 'a receipt for this intent was already appended' });
    expect(journal.entries().filter((e) => e.kind === 'ReceiptRejected').length).toBe(4);
    expect(kernel.remaining('llm')).toMatchObject({ tokens: 998n });
  });

  it('a signed receipt whose payload does not fit the receipt schema is refused, and the intent stays open', () => {
    const { kernel, journal } = setup();
    const admitted = kernel.enqueue(llm(10));
    if (!admitted.ok) throw new Error(admitted.denial.reason);
    const misshapen = sign({
      intentHash: admitted.intent.intentHash,
      adapterId: 'llm.ollama',
      status: 'ok',
      receipt: { output_ref: 'not a hash', token_usage: { prompt: -1, completion: 1 }, provider_id: 'p' },
    });
    const refused = kernel.submitReceipt(misshapen);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.reason).toContain('sys/LlmGenerateReceipt@1');
      expect(refused.reason).toContain('/receipt/output_ref');
      expect(refused.reason).toContain('/receipt/cost_cents');
    }
    expect(kernel.remaining('llm')).toMatchObject({ tokens: 1000n });
    const fits = sign({
      intentHash: admitted.intent.intentHash,
      adapterId: 'llm.ollama',
      status: 'ok',
      receipt: { output_ref: OUTPUT_REF, token_usage: { prompt: 1, completion: 1 }, cost_cents: 0, provider_id: 'p' },
    });
    expect(kernel.submitReceipt(fits)).toEqual({ ok: true });
    expect(
      journal
        .entries()
        .map((e) => e.kind)
        .filter((k) => k.startsWith('Receipt')),
    ).toEqual(['ReceiptRejected', 'ReceiptAppended']);
  });

  it('budgets never go below zero without BudgetExceeded', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 600 })), { maxLength: 12 }), (steps) => {
        const { kernel, journal } = setup();
        steps.forEach(([maxTokens, used], i) => {
          const admitted = kernel.enqueue({ ...llm(maxTokens), idempotencyKey: key(i) });
          if (!admitted.ok) return;
          const submitted = kernel.submitReceipt(
            sign({
              intentHash: admitted.intent.intentHash,
              adapterId: 'llm.ollama',
              status: 'ok',
              receipt: { output_ref: OUTPUT_REF, token_usage: { prompt: used, completion: 0 }, cost_cents: 0, provider_id: 'p' },
            }),
          );
          expect(submitted).toEqual({ ok: true });
        });
        const left = kernel.remaining('llm')!;
        const exceeded = journal.entries().some((e) => e.kind === 'BudgetExceeded');
        if (left.tokens! < 0n) expect(exceeded && left.exhausted).toBe(true);
        else expect(exceeded).toBe(false);
      }),
    );
  });
});

describe('policy: first match wins, default deny', () => {
  it('equals a reference evaluation on random rules and subjects', () => {
    const kinds = ['llm.generate', 'http.request', 'fs.read', 'fs.write'];
    const ruleArb = fc.record({
      when: fc.record(
        {
          effect_kind: fc.option(fc.constantFrom(...kinds, 'fs.*'), { nil: undefined }),
          cap_name: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
          origin_kind: fc.option(fc.constantFrom('plan', 'reducer'), { nil: undefined }),
        },
        { requiredKeys: [] },
      ),
      decision: fc.constantFrom('allow', 'deny'),
    });
    fc.assert(
      fc.property(
        fc.array(ruleArb, { maxLength: 6 }),
        fc.constantFrom(...kinds),
        fc.constantFrom('a', 'b'),
        fc.constantFrom('plan', 'reducer'),
        (rules, kind, cap, originKind) => {
          const clean = rules.map((r) => ({
            when: Object.fromEntries(Object.entries(r.when).filter(([, v]) => v !== undefined)),
            decision: r.decision,
          }));
          const pol = { $kind: 'defpolicy', name: 'p/p@1', rules: clean } as DefPolicyNode;
          const expectedIndex = clean.findIndex((r) => {
            const w = r.when as Record<string, string>;
            const kindOk = w.effect_kind === undefined || w.effect_kind === kind || (w.effect_kind === 'fs.*' && kind.startsWith('fs.'));
            return (
              kindOk && (w.cap_name === undefined || w.cap_name === cap) && (w.origin_kind === undefined || w.origin_kind === originKind)
            );
          });
          const decision = decidePolicy(pol, { kind, capName: cap, params: {}, origin: { kind: originKind as 'plan', name: 'x/y@1' } });
          expect(decision.ruleIndex).toBe(expectedIndex);
          expect(decision.decision).toBe(expectedIndex < 0 ? 'deny' : clean[expectedIndex]!.decision);
        },
      ),
    );
  });
});

describe('journal', () => {
  function filled(): JournalEntry[] {
    const store = new MemoryJournalStore();
    const opened = Journal.open(store);
    if (!opened.ok) throw new Error('journal');
    for (let i = 0; i < 5; i++) opened.journal.append('EffectQueued', { n: i });
    return [...store.entries()].map((e) => ({ ...e }));
  }

  it('a clean chain verifies and reopens', () => {
    const entries = filled();
    expect(verifyChain(entries)).toBeUndefined();
    const store = new MemoryJournalStore();
    entries.forEach((e) => store.append(e));
    const reopened = Journal.open(store);
    expect(reopened.ok && reopened.journal.append('PlanEnded', {}).seq).toBe(5);
  });

  it.each([
    ['an edited body', (e: JournalEntry[]) => (e[2] = { ...e[2]!, body: { n: 99 } }), 2, 'entry 2 was changed after it was written'],
    ['a deleted entry', (e: JournalEntry[]) => e.splice(1, 1), 1, 'entry 1 is missing or out of order (found 2)'],
    ['two entries swapped', (e: JournalEntry[]) => ([e[1], e[2]] = [e[2]!, e[1]!]), 1, 'entry 1 is missing or out of order (found 2)'],
    [
      'a rehashed edit',
      (e: JournalEntry[]) => (e[3] = { ...e[3]!, kind: 'PlanEnded', hash: e[3]!.hash }),
      3,
      'entry 3 was changed after it was written',
    ],
  ])('refuses %s', (_what, tamper, seq, reason) => {
    const entries = filled();
    tamper(entries);
    expect(verifyChain(entries)).toEqual({ seq, reason });
    const store = new MemoryJournalStore();
    entries.forEach((e) => store.append(e));
    expect(Journal.open(store)).toMatchObject({ ok: false, broken: { seq } });
  });
});
