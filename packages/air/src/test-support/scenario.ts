import { expect } from 'vitest';
import type { AirRuntime, RuntimeConfig } from '../air-runtime.js';
import { type Receipt, receiptSigningBytes } from '../kernel.js';
import type { CapGrantJson, DefPlanNode, DefPolicyNode } from '../nodes.js';
import { ed25519PublicKey, signEd25519 } from '../signing.js';
import { validateManifest } from '../validate.js';
import type { World } from '../world.js';

/** A fixed world for plan tests: a plan that reads a file and writes it back, an fs grant, a policy. */
const SECRET = new Uint8Array(32).fill(5);
export const fixPlan: DefPlanNode = {
  $kind: 'defplan',
  name: 'cairn/fix@1',
  input: { record: { path: { text: {} }, retries: { nat: {} } } },
  output: { record: { path: { text: {} }, written: { nat: {} } } },
  steps: [
    {
      id: 'a_read',
      op: 'emit_effect',
      kind: 'fs.read',
      params: { record: { path: { ref: '@plan.input.path' } } },
      cap: 'fs',
      bind: { effect_id_as: 'read_id' },
    },
    { id: 'b_wait_read', op: 'await_receipt', for: { ref: '@var:read_id' }, bind: { as: 'read' } },
    {
      id: 'c_write',
      op: 'emit_effect',
      kind: 'fs.write',
      params: {
        record: {
          op: { text: 'write' },
          path: { ref: '@plan.input.path' },
          size: { ref: '@var:read.size' },
          content_ref: { ref: '@var:read.content_ref' },
        },
      },
      cap: 'fs',
      bind: { effect_id_as: 'write_id' },
    },
    { id: 'd_wait_write', op: 'await_receipt', for: { ref: '@var:write_id' }, bind: { as: 'written' } },
    { id: 'e_done', op: 'end', result: { record: { path: { ref: '@plan.input.path' }, written: { ref: '@var:written.size' } } } },
    { id: 'z_skipped', op: 'end', result: { record: { path: { text: 'never' }, written: { nat: 0 } } } },
  ],
  edges: [
    { from: 'a_read', to: 'b_wait_read' },
    { from: 'b_wait_read', to: 'c_write', when: { op: 'gt', args: [{ ref: '@var:read.size' }, { nat: 0 }] } },
    { from: 'c_write', to: 'd_wait_write' },
    { from: 'd_wait_write', to: 'e_done' },
    { from: 'b_wait_read', to: 'z_skipped', when: { op: 'eq', args: [{ ref: '@var:read.size' }, { nat: 0 }] } },
  ],
  required_caps: ['fs'],
  allowed_effects: ['fs.read', 'fs.write'],
};
const policy: DefPolicyNode = {
  $kind: 'defpolicy',
  name: 'cairn/policy@1',
  rules: [{ when: { effect_kind: 'fs.*', origin_kind: 'plan' }, decision: 'allow' }],
};
const grants: CapGrantJson[] = [
  { name: 'fs', cap: 'sys/fs@1', params: { read_prefixes: [''], write_prefixes: ['src'] }, budget: { bytes: 100_000 } },
];

const reducer = {
  $kind: 'defmodule',
  name: 'cairn/r@1',
  module_kind: 'reducer',
  wasm_hash: 'sha256:' + '0'.repeat(64),
  abi: { reducer: { state: { unit: {} }, event: 'sys/TimerSetReceipt@1' } },
};

function world(plans: DefPlanNode[] = [fixPlan]): { world: World; manifestHash: string } {
  const manifest = {
    $kind: 'manifest',
    schemas: [],
    modules: [{ name: reducer.name }],
    plans: plans.map((p) => ({ name: p.name })),
    caps: [],
    policies: [{ name: policy.name }],
    defaults: { policy: policy.name, cap_grants: grants },
  };
  const result = validateManifest(manifest, [...plans, policy, reducer]);
  if (!result.ok) throw new Error(JSON.stringify(result.diagnostics, null, 2));
  return { world: result.value.world, manifestHash: result.value.manifestHash };
}

export function config(plans?: DefPlanNode[]): RuntimeConfig {
  const w = world(plans);
  return { ...w, grants, policy, adapters: { fs: { scheme: 'ed25519', key: ed25519PublicKey(SECRET) } }, nowNs: () => 0n };
}

export function signed(intentHash: string, receipt: Record<string, unknown>): Receipt {
  const body = {
    intentHash: intentHash as Receipt['intentHash'],
    adapterId: 'fs',
    status: 'ok' as const,
    receipt: receipt as Receipt['receipt'],
  };
  return { ...body, sig: signEd25519(SECRET, receiptSigningBytes(body)) };
}

/** Plays the fix plan to its end: read, then write, with receipts from the fs adapter. */
export function playFix(runtime: AirRuntime, instance = 'i1') {
  const started = runtime.start('cairn/fix@1', { path: 'src/a.ts', retries: 1 }, instance);
  expect(started.status).toBe('waiting');
  runtime.receipt(signed(started.intents.a_read!, { path: 'src/a.ts', kind: 'file', size: 42, content_ref: 'sha256:' + 'c'.repeat(64) }));
  expect(started.status).toBe('waiting');
  runtime.receipt(signed(started.intents.c_write!, { op: 'write', path: 'src/a.ts', size: 42, created: false }));
  return started;
}
