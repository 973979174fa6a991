import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AirRuntime, replayJournal, shadowRun } from './air-runtime.js';
import type { DefPlanNode } from './nodes.js';

import { config, playFix, signed } from './test-support/scenario.js';

describe('plan runner', () => {
  it('runs a plan through emits, receipts, guards and end', () => {
    const runtime = new AirRuntime(config());
    const instance = playFix(runtime);
    expect(instance.status).toBe('ended');
    expect(instance.completed).toEqual(['a_read', 'b_wait_read', 'c_write', 'd_wait_write', 'e_done']);
    expect(instance.result).toEqual({ path: 'src/a.ts', written: 42 });
    expect(runtime.journal.entries().map((e) => e.kind)).toEqual([
      'PlanStarted',
      'PolicyDecisionRecorded',
      'EffectQueued',
      'ReceiptAppended',
      'PolicyDecisionRecorded',
      'EffectQueued',
      'ReceiptAppended',
      'PlanEnded',
    ]);
  });

  it('takes the other branch when its guard holds', () => {
    const runtime = new AirRuntime(config());
    const instance = runtime.start('cairn/fix@1', { path: 'src/empty.ts', retries: 0 }, 'i2');
    runtime.receipt(
      signed(instance.intents.a_read!, { path: 'src/empty.ts', kind: 'file', size: 0, content_ref: 'sha256:' + 'c'.repeat(64) }),
    );
    expect(instance.completed).toEqual(['a_read', 'b_wait_read', 'z_skipped']);
    expect(instance.result).toEqual({ path: 'never', written: 0 });
  });

  it('a denied effect fails the instance, with the reason', () => {
    const runtime = new AirRuntime(config());
    const instance = runtime.start('cairn/fix@1', { path: '../outside', retries: 0 }, 'i3');
    expect(instance.status).toBe('failed');
    expect(instance.error).toMatchObject({
      code: 'plan.effect-denied',
      stepId: 'a_read',
      message:
        'fs.read was denied (constraint): path "../outside" is not a project-relative path (absolute paths, "..", NUL and backslashes are refused)',
    });
  });

  it('refuses an input that does not fit the plan', () => {
    const runtime = new AirRuntime(config());
    expect(runtime.start('cairn/fix@1', { path: 7 }, 'i4')).toMatchObject({
      status: 'failed',
      error: { code: 'value.type', path: '/input/path' },
    });
  });

  it('schedules one ready step per tick by step id, then definition order', () => {
    const plan: DefPlanNode = {
      $kind: 'defplan',
      name: 'cairn/order@1',
      input: { unit: {} },
      steps: ['c', 'a', 'b'].map((id) => ({ id, op: 'assign' as const, expr: { text: id }, bind: { as: id } })),
      edges: [],
      required_caps: [],
      allowed_effects: [],
    };
    const runtime = new AirRuntime(config([plan]));
    expect(runtime.start('cairn/order@1', {}, 'o').completed).toEqual(['a', 'b', 'c']);
  });

  it('await_event waits for a matching event (with where) and raise_event reaches the host', () => {
    const raised: unknown[] = [];
    const plan: DefPlanNode = {
      $kind: 'defplan',
      name: 'cairn/approve@1',
      input: { unit: {} },
      steps: [
        {
          id: 'wait',
          op: 'await_event',
          event: 'sys/TimerSetReceipt@1',
          where: { op: 'eq', args: [{ ref: '@var:ev.key' }, { text: 'go' }] },
          bind: { as: 'ev' },
        },
        { id: 'tell', op: 'raise_event', reducer: 'cairn/r@1', event: { ref: '@var:ev' } },
      ],
      edges: [{ from: 'wait', to: 'tell' }],
      required_caps: [],
      allowed_effects: [],
    };
    const cfg = config([plan]);
    const runtime = new AirRuntime({ ...cfg, raise: (reducer, event) => raised.push([reducer, event]) });
    const instance = runtime.start('cairn/approve@1', {}, 'w');
    runtime.event('sys/TimerSetReceipt@1', { delivered_at_ns: 1, key: 'wait' });
    expect(instance.status).toBe('waiting');
    runtime.event('sys/TimerSetReceipt@1', { delivered_at_ns: 2, key: 'go' });
    expect(instance.status).toBe('ended');
    expect(raised).toEqual([['cairn/r@1', { delivered_at_ns: 2, key: 'go' }]]);
  });

  it('random valid plans always terminate', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 30 }), (n, raw) => {
        const ids = Array.from({ length: n }, (_, i) => `s${String(i).padStart(2, '0')}`);
        const edges = raw
          .map(([a, b, guarded]) => [a % n, b % n, guarded] as const)
          .filter(([a, b]) => a < b)
          .map(([a, b, guarded]) => ({
            from: ids[a]!,
            to: ids[b]!,
            ...(guarded ? { when: { op: 'lt', args: [{ nat: a }, { nat: 6 }] } } : {}),
          }));
        const unique = [...new Map(edges.map((e) => [`${e.from}>${e.to}`, e])).values()];
        const plan: DefPlanNode = {
          $kind: 'defplan',
          name: 'cairn/random@1',
          input: { unit: {} },
          steps: ids.map((id, i) =>
            i === n - 1 && i > 0 ? { id, op: 'end' as const } : { id, op: 'assign' as const, expr: { nat: i }, bind: { as: `v${i}` } },
          ),
          edges: unique,
          required_caps: [],
          allowed_effects: [],
        };
        const runtime = new AirRuntime(config([plan]));
        const instance = runtime.start('cairn/random@1', {}, 'r');
        expect(['ended', 'failed']).toContain(instance.status);
      }),
      { numRuns: 100 },
    );
  });
});

describe('replay or die', () => {
  it('a recorded run replays to the same journal and the same state hash', () => {
    const cfg = config();
    const runtime = new AirRuntime(cfg);
    playFix(runtime, 'a');
    playFix(runtime, 'b');
    runtime.receipt(signed('sha256:' + 'd'.repeat(64), { op: 'write', path: 'x', size: 1, created: true }));
    const replayed = replayJournal(cfg, runtime.journal.entries());
    expect(replayed).toMatchObject({ ok: true, stateHash: runtime.stateHash() });
    expect(replayed.produced.map((e) => e.hash)).toEqual(runtime.journal.entries().map((e) => e.hash));
    const queued = runtime.journal.entries().filter((e) => e.kind === 'EffectQueued');
    expect(queued.length).toBeGreaterThan(0);
    for (const e of queued)
      expect(Object.keys(e.body as object)).toEqual(expect.arrayContaining(['instance_id', 'intent_hash', 'origin_kind', 'origin_name']));
    expect(queued.map((e) => (e.body as { instance_id: unknown }).instance_id)).toEqual(expect.arrayContaining(['a', 'b']));
  });

  it('an edited entry that kept its stored hash fails replay at that entry, before anything is compared', () => {
    const cfg = config();
    const runtime = new AirRuntime(cfg);
    playFix(runtime);
    const entries = runtime.journal.entries().map((e) => ({ ...e }));
    const index = entries.findIndex((e) => e.kind === 'PolicyDecisionRecorded');
    expect(index).toBeGreaterThanOrEqual(0);
    entries[index] = { ...entries[index]!, body: { ...(entries[index]!.body as object), decision: 'deny' } as never };
    const outcome = replayJournal(cfg, entries);
    expect(outcome).toMatchObject({ ok: false, seq: index, produced: [] });
    if (!outcome.ok) expect(outcome.reason).toMatch(/does not verify/);
  });

  it('a truncated journal fails replay against its expected head; a divergence names both entries', () => {
    const cfg = config();
    const runtime = new AirRuntime(cfg);
    playFix(runtime, 'a');
    playFix(runtime, 'b');
    const entries = runtime.journal.entries();
    const head = { hash: entries.at(-1)!.hash, length: entries.length };
    expect(replayJournal(cfg, entries, head).ok).toBe(true);
    expect(replayJournal(cfg, entries.slice(0, -1), head)).toMatchObject({ ok: false });
    const changed = { ...cfg, manifestHash: 'sha256:' + '0'.repeat(64) };
    const outcome = replayJournal(changed, entries);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.divergence?.recorded?.hash).toBe(entries[outcome.seq]!.hash);
      expect(outcome.divergence?.replayed?.hash).toBe(outcome.produced[outcome.seq]!.hash);
      expect(outcome.divergence?.replayed?.hash).not.toBe(outcome.divergence?.recorded?.hash);
    }
  });

  it('a journal whose recorded receipt was altered does not replay', () => {
    const cfg = config();
    const runtime = new AirRuntime(cfg);
    playFix(runtime);
    const entries = runtime.journal.entries().map((e) => ({ ...e }));
    const index = entries.findIndex((e) => e.kind === 'ReceiptAppended');
    const body = structuredClone(entries[index]!.body) as { submitted: { receipt: { size: number } } };
    body.submitted.receipt.size = 43;
    entries[index] = { ...entries[index]!, body: body as never };
    expect(replayJournal(cfg, entries)).toMatchObject({ ok: false, seq: index });
  });

  it('a different manifest does not replay the same journal', () => {
    const cfg = config();
    const runtime = new AirRuntime(cfg);
    playFix(runtime);
    const changed = { ...cfg, manifestHash: 'sha256:' + '0'.repeat(64) };
    expect(replayJournal(changed, runtime.journal.entries())).toMatchObject({ ok: false, seq: 0 });
  });
});

describe('shadow run', () => {
  it('predicts the intents and the path up to the first wait, with effects stubbed', () => {
    const report = shadowRun(config(), 'cairn/fix@1', { path: 'src/a.ts', retries: 1 });
    expect(report).toMatchObject({ status: 'waiting', path: ['a_read'], waitsAt: 'b_wait_read' });
    expect(report.intents.map((i) => [i.step, i.kind, i.cap, i.params])).toEqual([['a_read', 'fs.read', 'fs', { path: 'src/a.ts' }]]);
  });

  it('reports a denial instead of an intent, for absolute paths as for climbing ones', () => {
    expect(shadowRun(config(), 'cairn/fix@1', { path: '/etc/passwd', retries: 1 })).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('plan.effect-denied'),
    });
    expect(shadowRun(config(), 'cairn/fix@1', { path: '//etc/passwd', retries: 1 })).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('plan.effect-denied'),
    });
    expect(shadowRun(config(), 'cairn/fix@1', { path: '../x', retries: 1 })).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('plan.effect-denied'),
    });
  });
});
