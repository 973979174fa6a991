import { describe, expect, it } from 'vitest';
import { validateManifest } from './validate.js';

const digestPlan = {
  $kind: 'defplan',
  name: 'com.acme/daily_digest@1',
  input: { unit: {} },
  steps: [
    { id: 'set_url', op: 'assign', expr: { text: 'https://news.google.com/rss' }, bind: { as: 'rss_url' } },
    {
      id: 'fetch',
      op: 'emit_effect',
      kind: 'http.request',
      params: { record: { method: { text: 'GET' }, url: { ref: '@var:rss_url' }, headers: { map: [] } } },
      cap: 'http_out_google',
      bind: { effect_id_as: 'fetch_id' },
    },
    { id: 'wait_fetch', op: 'await_receipt', for: { ref: '@var:fetch_id' }, bind: { as: 'fetch_rcpt' } },
    {
      id: 'summarize',
      op: 'emit_effect',
      kind: 'llm.generate',
      params: {
        record: {
          provider: { text: 'openai' },
          model: { text: 'gpt-4o' },
          temperature: { dec128: '0.2' },
          max_tokens: { nat: 400 },
          input_ref: { ref: '@var:fetch_rcpt.body_ref' },
        },
      },
      cap: 'llm_basic',
      bind: { effect_id_as: 'sum_id' },
    },
    { id: 'wait_sum', op: 'await_receipt', for: { ref: '@var:sum_id' }, bind: { as: 'sum_rcpt' } },
    { id: 'done', op: 'end' },
  ],
  edges: [
    { from: 'set_url', to: 'fetch' },
    { from: 'fetch', to: 'wait_fetch' },
    { from: 'wait_fetch', to: 'summarize', when: { op: 'eq', args: [{ ref: '@var:fetch_rcpt.status' }, { int: 200 }] } },
    { from: 'summarize', to: 'wait_sum' },
    { from: 'wait_sum', to: 'done' },
  ],
  required_caps: ['http_out_google', 'llm_basic'],
  allowed_effects: ['http.request', 'llm.generate'],
};
const item = { $kind: 'defschema', name: 'com.acme/FeedItem@1', type: { record: { title: { text: {} }, url: { text: {} } } } };
const counter = {
  $kind: 'defmodule',
  name: 'com.acme/feed@1',
  module_kind: 'reducer',
  wasm_hash: 'sha256:' + '0'.repeat(64),
  abi: {
    reducer: {
      state: { list: { ref: 'com.acme/FeedItem@1' } },
      event: 'com.acme/FeedItem@1',
      effects_emitted: ['timer.set'],
      cap_slots: { timer: 'timer' },
    },
  },
};
const policy = {
  $kind: 'defpolicy',
  name: 'com.acme/policy@1',
  rules: [
    { when: { effect_kind: 'http.request', host: 'news.google.com' }, decision: 'allow' },
    { when: { effect_kind: 'llm.generate', origin_kind: 'reducer' }, decision: 'deny' },
    { when: { effect_kind: 'llm.generate', origin_kind: 'plan' }, decision: 'allow' },
  ],
};
const manifest = {
  $kind: 'manifest',
  schemas: [{ name: 'com.acme/FeedItem@1' }],
  modules: [{ name: 'com.acme/feed@1' }],
  plans: [{ name: 'com.acme/daily_digest@1' }],
  caps: [] as { name: string }[],
  policies: [{ name: 'com.acme/policy@1' }],
  routing: { events: [{ event: 'com.acme/FeedItem@1', reducer: 'com.acme/feed@1' }] },
  defaults: {
    policy: 'com.acme/policy@1',
    cap_grants: [
      { name: 'http_out_google', cap: 'sys/http.out@1', params: { hosts: ['news.google.com'], verbs: ['GET'] } },
      { name: 'llm_basic', cap: 'sys/llm.basic@1', params: { models: ['gpt-4o'], max_tokens_max: 1000 } },
      { name: 'timers', cap: 'sys/timer@1', params: {} },
    ],
  },
  module_bindings: { 'com.acme/feed@1': { slots: { timer: 'timers' } } },
};
const defs = [item, counter, digestPlan, policy];

/** The manifest with one change made by `edit` (a deep copy). */
function withChange<T>(value: T, edit: (copy: T) => void): T {
  const copy = structuredClone(value);
  edit(copy);
  return copy;
}

describe('validateManifest', () => {
  it('accepts a whole world and fills in every hash', () => {
    const result = validateManifest(manifest, defs);
    if (!result.ok) throw new Error(JSON.stringify(result.diagnostics, null, 2));
    expect(result.value.manifest.plans[0]!.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.value.manifestHash).toMatch(/^sha256:/);
    expect(result.value.world.get('defschema', 'sys/HttpRequestParams@1')?.builtin).toBe(true);
  });

  type Case = [string, unknown, unknown[], Record<string, unknown>];
  const plan = (edit: (p: typeof digestPlan) => void) => withChange(digestPlan, edit);
  const cases: Case[] = [
    [
      'a manifest entry with no definition',
      withChange(manifest, (m) => m.plans.push({ name: 'com.acme/missing@1' })),
      defs,
      {
        code: 'manifest.unresolved',
        message: 'plans lists "com.acme/missing@1", but no defplan of that name was given',
        path: '/plans/1',
        name: 'com.acme/missing@1',
      },
    ],
    [
      'a wrong hash',
      withChange(manifest, (m) => Object.assign(m.schemas[0]!, { hash: 'sha256:' + 'f'.repeat(64) })),
      defs,
      { code: 'manifest.hash-mismatch', path: '/schemas/0/hash', name: 'com.acme/FeedItem@1' },
    ],
    [
      'a name listed twice',
      withChange(manifest, (m) => m.schemas.push({ name: 'com.acme/FeedItem@1' })),
      defs,
      { code: 'manifest.duplicate-name', message: '"com.acme/FeedItem@1" is listed twice in schemas', path: '/schemas/1' },
    ],
    [
      'two definitions with one name',
      manifest,
      [...defs, { ...item, type: { text: {} } }],
      { code: 'manifest.duplicate-name', message: 'two defschema definitions are named "com.acme/FeedItem@1"' },
    ],
    [
      'a recursive schema',
      manifest,
      [{ ...item, type: { record: { next: { option: { ref: 'com.acme/FeedItem@1' } } } } }, counter, digestPlan, policy],
      {
        code: 'type.cycle',
        message: 'recursive type: com.acme/FeedItem@1 -> com.acme/FeedItem@1; AIR v1 types cannot refer to themselves',
        path: '/type/record/next/option',
        name: 'com.acme/FeedItem@1',
      },
    ],
    [
      'a module with an unknown schema',
      manifest,
      [item, withChange(counter, (c) => (c.abi.reducer.event = 'com.acme/Nope@1')), digestPlan, policy],
      { code: 'ref.unresolved', message: 'no schema named "com.acme/Nope@1"', path: '/abi/reducer/event', name: 'com.acme/feed@1' },
    ],
    [
      'a module emitting an unknown effect',
      manifest,
      [item, withChange(counter, (c) => c.abi.reducer.effects_emitted.push('email.send')), digestPlan, policy],
      { code: 'module.unknown-effect', path: '/abi/reducer/effects_emitted/1' },
    ],
    [
      'a policy on an unknown effect kind',
      manifest,
      [item, counter, digestPlan, withChange(policy, (p) => (p.rules[0]!.when.effect_kind = 'payment.charge'))],
      { code: 'policy.unknown-effect', path: '/rules/0/when/effect_kind', name: 'com.acme/policy@1' },
    ],
    [
      'a step id used twice',
      manifest,
      [item, counter, plan((p) => (p.steps[1]!.id = 'set_url')), policy],
      {
        code: 'plan.duplicate-step',
        message: 'step id "set_url" is used twice',
        path: '/steps/1/id',
        name: 'com.acme/daily_digest@1',
        stepId: 'set_url',
      },
    ],
    [
      'a cycle',
      manifest,
      [item, counter, plan((p) => p.edges.push({ from: 'done', to: 'set_url' })), policy],
      { code: 'plan.cycle', path: '/edges', name: 'com.acme/daily_digest@1' },
    ],
    [
      'an edge to nowhere',
      manifest,
      [item, counter, plan((p) => p.edges.push({ from: 'done', to: 'ghost' })), policy],
      { code: 'plan.unknown-step', message: 'edge to "ghost": no such step', path: '/edges/5/to' },
    ],
    [
      'an effect outside allowed_effects',
      manifest,
      [item, counter, plan((p) => (p.allowed_effects = ['http.request'])), policy],
      {
        code: 'plan.effect-not-allowed',
        message: 'effect "llm.generate" is not in allowed_effects (http.request)',
        path: '/steps/3/kind',
        stepId: 'summarize',
      },
    ],
    [
      'an undeclared cap',
      manifest,
      [item, counter, plan((p) => ((p.steps[1] as { cap: string }).cap = 'root')), policy],
      {
        code: 'plan.cap-not-declared',
        message: 'cap grant "root" is neither in required_caps nor in the manifest\'s default grants',
        path: '/steps/1/cap',
        stepId: 'fetch',
      },
    ],
    [
      'an await on no earlier emit',
      manifest,
      [item, counter, plan((p) => ((p.steps[2] as { for: unknown }).for = { ref: '@var:sum_id' })), policy],
      { code: 'plan.await-unknown-effect', path: '/steps/2/for', stepId: 'wait_fetch' },
    ],
    [
      'a reference to an unbound variable',
      manifest,
      [
        item,
        counter,
        plan(
          (p) =>
            ((p.steps[1] as { params: unknown }).params = {
              record: { method: { text: 'GET' }, url: { ref: '@var:nope' }, headers: { map: [] } },
            }),
        ),
        policy,
      ],
      {
        code: 'expr.unbound-ref',
        message: '@var:nope: variable "nope" is not bound by an earlier step',
        path: '/steps/1/params/record/url/ref',
        stepId: 'fetch',
      },
    ],
    [
      'a field the receipt does not have',
      manifest,
      [item, counter, plan((p) => (p.edges[2]!.when = { op: 'eq', args: [{ ref: '@var:fetch_rcpt.code' }, { int: 200 }] })), policy],
      { code: 'expr.no-field', path: '/edges/2/when/args/0/ref' },
    ],
    [
      'params of the wrong type',
      manifest,
      [
        item,
        counter,
        plan(
          (p) =>
            ((p.steps[1] as { params: unknown }).params = { record: { method: { int: 1 }, url: { text: 'u' }, headers: { map: [] } } }),
        ),
        policy,
      ],
      {
        code: 'plan.type',
        message:
          'the params of http.request is record {method: int, url: text, headers: unknown}, but record {method: text, url: text, headers: map<text, text>, body_ref: option<hash>} is required',
        path: '/steps/1/params',
        stepId: 'fetch',
      },
    ],
    [
      'a guard that is not a bool',
      manifest,
      [item, counter, plan((p) => (p.edges[0]!.when = { text: 'yes' } as never)), policy],
      { code: 'plan.type', message: 'the guard is text, but bool is required', path: '/edges/0/when' },
    ],
    [
      'a raise_event to an unknown reducer',
      manifest,
      [
        item,
        counter,
        plan((p) => p.steps.splice(5, 0, { id: 'tell', op: 'raise_event', reducer: 'com.acme/nope@1', event: { null: {} } } as never)),
        policy,
      ],
      { code: 'plan.unknown-reducer', stepId: 'tell' },
    ],
    [
      'a raise_event with the wrong event',
      manifest,
      [
        item,
        counter,
        plan((p) =>
          p.steps.splice(5, 0, {
            id: 'tell',
            op: 'raise_event',
            reducer: 'com.acme/feed@1',
            event: { record: { title: { int: 1 }, url: { text: 'u' } } },
          } as never),
        ),
        policy,
      ],
      {
        code: 'plan.type',
        message: 'the event for com.acme/feed@1 is record {title: int, url: text}, but record {title: text, url: text} is required',
        stepId: 'tell',
      },
    ],
    [
      'a keyed reducer without a key',
      withChange(manifest, (m) => ((m.routing.events[0] as { key_field?: string }).key_field = 'url')),
      [
        item,
        counter,
        plan((p) =>
          p.steps.splice(5, 0, {
            id: 'tell',
            op: 'raise_event',
            reducer: 'com.acme/feed@1',
            event: { record: { title: { text: 't' }, url: { text: 'u' } } },
          } as never),
        ),
        policy,
      ],
      { code: 'plan.missing-key', stepId: 'tell' },
    ],
    [
      'an output without a result',
      manifest,
      [item, counter, plan((p) => Object.assign(p, { output: 'com.acme/FeedItem@1' })), policy],
      {
        code: 'plan.result-type',
        message: 'the plan declares an output (record {title: text, url: text}), so "end" needs a result',
        stepId: 'done',
      },
    ],
    [
      'a default grant with bad params',
      withChange(manifest, (m) => (m.defaults.cap_grants[0]!.params = { hosts: 'news.google.com', verbs: ['GET'] } as never)),
      defs,
      {
        code: 'value.type',
        message: 'expected a set (array), found the string "news.google.com"',
        path: '/defaults/cap_grants/0/params/hosts',
      },
    ],
    [
      'a grant of an unknown capability',
      withChange(manifest, (m) => (m.defaults.cap_grants[2]!.cap = 'sys/teleport@1')),
      defs,
      { code: 'manifest.unknown-cap', path: '/defaults/cap_grants/2/cap' },
    ],
    [
      'a binding to a slot the module lacks',
      withChange(manifest, (m) => (m.module_bindings['com.acme/feed@1']!.slots = { net: 'timers' } as never)),
      defs,
      { code: 'manifest.unknown-slot', message: 'module "com.acme/feed@1" has no cap slot "net"' },
    ],
    [
      'a trigger whose event is not the plan input',
      withChange(manifest, (m) => Object.assign(m, { triggers: [{ event: 'com.acme/FeedItem@1', plan: 'com.acme/daily_digest@1' }] })),
      defs,
      {
        code: 'manifest.trigger-input',
        message: 'plan "com.acme/daily_digest@1" takes unit, but the trigger\'s event is record {title: text, url: text}',
      },
    ],
    [
      'a capability of an unknown type',
      withChange(manifest, (m) => m.caps.push({ name: 'com.acme/cap@1' })),
      [...defs, { $kind: 'defcap', name: 'com.acme/cap@1', cap_type: 'teleport', schema: { record: {} } }],
      { code: 'cap.unknown-type', path: '/cap_type', name: 'com.acme/cap@1' },
    ],
    [
      'a capability schema that does not fit its type',
      withChange(manifest, (m) => m.caps.push({ name: 'com.acme/http@1' })),
      [...defs, { $kind: 'defcap', name: 'com.acme/http@1', cap_type: 'http.out', schema: { record: { hosts: { list: { text: {} } } } } }],
      { code: 'cap.incompatible-schema', message: 'field "hosts" is list<text>, but http.out defines it as set<text>' },
    ],
    ['defmigration', manifest, [...defs, { $kind: 'defmigration', name: 'com.acme/m@1' }], { code: 'node.reserved-kind', path: '/$kind' }],
  ];

  it.each(cases)('refuses %s, with the exact diagnostic', (_what, manifestJson, definitions, expected) => {
    const result = validateManifest(manifestJson, definitions);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.diagnostics).toContainEqual(expect.objectContaining(expected));
  });

  it('reports every problem at once', () => {
    const broken = [
      item,
      counter,
      plan((p) => {
        p.steps[1]!.id = 'set_url';
        p.allowed_effects = [];
      }),
      withChange(policy, (p) => (p.rules[0]!.when.effect_kind = 'payment.charge')),
    ];
    const result = validateManifest(manifest, broken);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.diagnostics.map((d) => d.code)).toEqual(
        expect.arrayContaining(['policy.unknown-effect', 'plan.duplicate-step', 'plan.effect-not-allowed']),
      );
  });
});
