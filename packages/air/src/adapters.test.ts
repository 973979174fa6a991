import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobAdapter, type EffectAdapter, TimerAdapter } from './adapters.js';
import { AirRuntime, type RuntimeConfig } from './air-runtime.js';
import { HttpAdapter, nodeSignatureVerifier } from './node/index.js';
import type { CapGrantJson, DefPlanNode, DefPolicyNode } from './nodes.js';
import { ed25519PublicKey } from './signing.js';
import { validateManifest } from './validate.js';

const KEY = new Uint8Array(32).fill(11);
const policy: DefPolicyNode = { $kind: 'defpolicy', name: 'cairn/p@1', rules: [{ when: { origin_kind: 'plan' }, decision: 'allow' }] };

function runtimeFor(plan: DefPlanNode, grants: CapGrantJson[], adapters: EffectAdapter[], clock = 0n): AirRuntime {
  const manifest = {
    $kind: 'manifest',
    schemas: [],
    modules: [],
    plans: [{ name: plan.name }],
    caps: [],
    policies: [{ name: policy.name }],
    defaults: { policy: policy.name, cap_grants: grants },
  };
  const validated = validateManifest(manifest, [plan, policy]);
  if (!validated.ok) throw new Error(JSON.stringify(validated.diagnostics, null, 2));
  let runtime: AirRuntime;
  const byKind = new Map(adapters.flatMap((a) => a.kinds.map((k) => [k, a] as const)));
  const config: RuntimeConfig = {
    world: validated.value.world,
    manifestHash: validated.value.manifestHash,
    grants,
    policy,
    adapters: Object.fromEntries(adapters.map((a) => [a.id, { scheme: 'ed25519' as const, key: ed25519PublicKey(KEY) }])),
    nowNs: () => clock,
    verifySignature: nodeSignatureVerifier,
    onIntent: (_i, _s, intent) =>
      queueMicrotask(() => void byKind.get(intent.kind)!.execute(intent, (receipt) => runtime.receipt(receipt))),
  };
  runtime = new AirRuntime(config);
  return runtime;
}

/** Waits for a condition (an adapter's receipt landing), never for a length of time; the deadline only catches hangs. */
async function until(done: () => boolean, what: string, deadlineMs = 60_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe('adapters', () => {
  it('blob.put files a stored blob under a namespace; blob.get finds it; unknown blobs are errors', async () => {
    const blobs = new BlobAdapter('blob', KEY);
    const ref = blobs.store(new TextEncoder().encode('hello blob'));
    const plan: DefPlanNode = {
      $kind: 'defplan',
      name: 'cairn/blobs@1',
      input: { record: { ref: { hash: {} }, key: { text: {} } } },
      output: { nat: {} },
      steps: [
        {
          id: 'a',
          op: 'emit_effect',
          kind: 'blob.put',
          params: { record: { namespace: { text: 'docs' }, blob_ref: { ref: '@plan.input.ref' } } },
          cap: 'blobs',
          bind: { effect_id_as: 'put' },
        },
        { id: 'b', op: 'await_receipt', for: { ref: '@var:put' }, bind: { as: 'put_r' } },
        {
          id: 'c',
          op: 'emit_effect',
          kind: 'blob.get',
          params: { record: { namespace: { text: 'docs' }, key: { ref: '@plan.input.key' } } },
          cap: 'blobs',
          bind: { effect_id_as: 'get' },
        },
        { id: 'd', op: 'await_receipt', for: { ref: '@var:get' }, bind: { as: 'get_r' } },
        { id: 'e', op: 'end', result: { ref: '@var:get_r.size' } },
      ],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'd' },
        { from: 'd', to: 'e' },
      ],
      required_caps: ['blobs'],
      allowed_effects: ['blob.put', 'blob.get'],
    };
    const runtime = runtimeFor(plan, [{ name: 'blobs', cap: 'sys/blob@1', params: { namespaces: ['docs'] } }], [blobs]);
    const instance = runtime.start(plan.name, { ref, key: ref }, 'b1');
    await until(() => instance.status === 'ended' || instance.status === 'failed', 'the blob plan to end');
    expect(instance).toMatchObject({ status: 'ended', result: 10 });
  });

  it('timer.set fires on the injected clock, earliest first', async () => {
    const timers = new TimerAdapter('timer', KEY, 0n);
    const plan: DefPlanNode = {
      $kind: 'defplan',
      name: 'cairn/timer@1',
      input: { unit: {} },
      output: { nat: {} },
      steps: [
        {
          id: 'a',
          op: 'emit_effect',
          kind: 'timer.set',
          params: { record: { deliver_at_ns: { nat: 1000 }, key: { text: 'wake' } } },
          cap: 'timers',
          bind: { effect_id_as: 't' },
        },
        { id: 'b', op: 'await_receipt', for: { ref: '@var:t' }, bind: { as: 'fired' } },
        { id: 'c', op: 'end', result: { ref: '@var:fired.delivered_at_ns' } },
      ],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
      ],
      required_caps: ['timers'],
      allowed_effects: ['timer.set'],
    };
    const runtime = runtimeFor(plan, [{ name: 'timers', cap: 'sys/timer@1', params: {} }], [timers]);
    const instance = runtime.start(plan.name, {}, 't1');
    await until(() => timers.pending === 1, 'the timer to be set');
    expect(instance.status).toBe('waiting');
    expect(timers.pending).toBe(1);
    timers.advanceTo(999n);
    expect(instance.status).toBe('waiting');
    timers.advanceTo(1500n);
    expect(instance).toMatchObject({ status: 'ended', result: 1500 });
  });

  describe('http.request against a server on 127.0.0.1', () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          res.setHeader('x-echo-method', req.method ?? '');
          res.end(`${req.method} ${req.url} ${body}`);
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('performs the request and stores the response body in the blob store', async () => {
      const blobs = new BlobAdapter('blob', KEY);
      const http = new HttpAdapter('http', KEY, blobs);
      const bodyRef = blobs.store(new TextEncoder().encode('payload'));
      const plan: DefPlanNode = {
        $kind: 'defplan',
        name: 'cairn/http@1',
        input: { record: { url: { text: {} }, body: { hash: {} } } },
        output: { record: { status: { int: {} }, body: { hash: {} } } },
        steps: [
          {
            id: 'a',
            op: 'emit_effect',
            kind: 'http.request',
            params: {
              record: {
                method: { text: 'POST' },
                url: { ref: '@plan.input.url' },
                headers: { map: [] },
                body_ref: { ref: '@plan.input.body' },
              },
            },
            cap: 'local',
            bind: { effect_id_as: 'req' },
          },
          { id: 'b', op: 'await_receipt', for: { ref: '@var:req' }, bind: { as: 'res' } },
          { id: 'c', op: 'end', result: { record: { status: { ref: '@var:res.status' }, body: { ref: '@var:res.body_ref' } } } },
        ],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'c' },
        ],
        required_caps: ['local'],
        allowed_effects: ['http.request'],
      };
      const runtime = runtimeFor(
        plan,
        [{ name: 'local', cap: 'sys/http.out@1', params: { hosts: ['127.0.0.1'], verbs: ['POST'] } }],
        [http],
      );
      const instance = runtime.start(plan.name, { url: `${base}/echo?x=1`, body: bodyRef }, 'h1');
      await until(() => instance.status === 'ended' || instance.status === 'failed', 'the HTTP plan to end');
      expect(instance.error).toBeUndefined();
      expect(instance.status).toBe('ended');
      const result = instance.result as { status: number; body: Uint8Array };
      expect(result.status).toBe(200);
      const stored = blobs.read(`sha256:${Buffer.from(result.body).toString('hex')}`);
      expect(new TextDecoder().decode(stored)).toBe('POST /echo?x=1 payload');
    });
  });
});
