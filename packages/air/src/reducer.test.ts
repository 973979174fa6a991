import { beforeAll, describe, expect, it } from 'vitest';
import wabtInit from 'wabt';
import { AirRuntime, type RuntimeConfig, replayJournal } from './air-runtime.js';
import { hashBytes } from './node-hash.js';
import type { DefPlanNode, DefPolicyNode } from './nodes.js';
import { loadReducer } from './reducer.js';
import { validateManifest } from './validate.js';

/** A counter: the state is a small unsigned integer, the last byte of the envelope {event, state}; each step adds one. */
const COUNTER_WAT = `(module
  (memory (export "memory") 1)
  (global $next (mut i32) (i32.const 1024))
  (func (export "alloc") (param $len i32) (result i32)
    (local $p i32)
    (local.set $p (global.get $next))
    (global.set $next (i32.add (global.get $next) (local.get $len)))
    (local.get $p))
  (func (export "step") (param $ptr i32) (param $len i32) (result i32 i32)
    (local $n i32)
    (local.set $n (i32.add (i32.load8_u (i32.sub (i32.add (local.get $ptr) (local.get $len)) (i32.const 1))) (i32.const 1)))
    ;; {"state": n}: a1 65 "state" then n (one byte below 24, else 0x18 n)
    (i32.store8 (i32.const 0) (i32.const 0xa1))
    (i32.store8 (i32.const 1) (i32.const 0x65))
    (i32.store8 (i32.const 2) (i32.const 0x73))
    (i32.store8 (i32.const 3) (i32.const 0x74))
    (i32.store8 (i32.const 4) (i32.const 0x61))
    (i32.store8 (i32.const 5) (i32.const 0x74))
    (i32.store8 (i32.const 6) (i32.const 0x65))
    (if (result i32 i32) (i32.lt_u (local.get $n) (i32.const 24))
      (then (i32.store8 (i32.const 7) (local.get $n)) (i32.const 0) (i32.const 8))
      (else (i32.store8 (i32.const 7) (i32.const 0x18)) (i32.store8 (i32.const 8) (local.get $n)) (i32.const 0) (i32.const 9)))))`;

/** Emits a constant output with a domain event: {"state": 0, "domain_events": [{"schema": "cairn/Done@1", "value": {}}]}. */
const EMITTER_WAT = `(module
  (memory (export "memory") 1)
  (data (i32.const 16) "\\a2\\65state\\00\\6ddomain_events\\81\\a2\\65value\\a0\\66schema\\6ccairn/Done@1")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "step") (param i32 i32) (result i32 i32) (i32.const 16) (i32.const 51)))`;

/** Asks for a timer as a micro-effect: {"state": 0, "effects": [{"cap": "t", "kind": "timer.set", "params": {"deliver_at_ns": 5}}]}. */
const TIMER_WAT = `(module
  (memory (export "memory") 1)
  (data (i32.const 16) "\\a2\\65state\\00\\67effects\\81\\a3\\63cap\\61t\\64kind\\69timer.set\\66params\\a1\\6ddeliver_at_ns\\05")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "step") (param i32 i32) (result i32 i32) (i32.const 16) (i32.const 62)))`;

const IMPORTER_WAT = `(module (import "env" "print" (func (param i32))) (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 0))
  (func (export "step") (param i32 i32) (result i32 i32) (i32.const 0) (i32.const 0)))`;

let wasm: Record<string, Uint8Array>;
beforeAll(async () => {
  const wabt = await wabtInit();
  const build = (name: string, source: string) => {
    const module = wabt.parseWat(`${name}.wat`, source, { multi_value: true });
    module.validate();
    return new Uint8Array(module.toBinary({}).buffer);
  };
  wasm = {
    counter: build('counter', COUNTER_WAT),
    emitter: build('emitter', EMITTER_WAT),
    importer: build('importer', IMPORTER_WAT),
    timer: build('timer', TIMER_WAT),
  };
});

describe('WASM reducers', () => {
  it('steps deterministically in fresh instances, pinned to their hash', () => {
    const loaded = loadReducer(wasm.counter!, hashBytes(wasm.counter!));
    if (!loaded.ok) throw new Error(loaded.error);
    let state: unknown = 0;
    for (let i = 0; i < 30; i++) {
      const stepped = loaded.reducer.step(state as number, { tick: i });
      if (!stepped.ok) throw new Error(stepped.error);
      state = stepped.output.state;
    }
    expect(state).toBe(30);
    expect(loaded.reducer.step(5, 'again')).toEqual(loaded.reducer.step(5, 'again'));
  });

  it('refuses a wrong hash, imports other than memory, and bad modules', () => {
    expect(loadReducer(wasm.counter!, 'sha256:' + '0'.repeat(64))).toMatchObject({
      ok: false,
      error: expect.stringContaining('hashes to'),
    });
    expect(loadReducer(wasm.importer!)).toEqual({ ok: false, error: 'a reducer may import only env.memory; it imports env.print' });
    expect(loadReducer(new Uint8Array([0, 1, 2]))).toMatchObject({
      ok: false,
      error: expect.stringContaining('not a valid WebAssembly module'),
    });
  });

  it('raise_event steps a reducer; its domain events trigger plans; the whole replays', () => {
    const counter = loadReducer(wasm.counter!);
    const emitter = loadReducer(wasm.emitter!);
    if (!counter.ok || !emitter.ok) throw new Error('load');
    const done = { $kind: 'defschema', name: 'cairn/Done@1', type: { record: {} } };
    const tick = { $kind: 'defschema', name: 'cairn/Tick@1', type: { record: { n: { nat: {} } } } };
    const module = (name: string, hash: string) => ({
      $kind: 'defmodule',
      name,
      module_kind: 'reducer',
      wasm_hash: hash,
      abi: { reducer: { state: { nat: {} }, event: 'cairn/Tick@1' } },
    });
    const raise: DefPlanNode = {
      $kind: 'defplan',
      name: 'cairn/raise@1',
      input: 'cairn/Tick@1',
      steps: [
        { id: 'a', op: 'raise_event', reducer: 'cairn/counter@1', event: { ref: '@plan.input' } },
        { id: 'b', op: 'raise_event', reducer: 'cairn/emitter@1', event: { ref: '@plan.input' } },
      ],
      edges: [{ from: 'a', to: 'b' }],
      required_caps: [],
      allowed_effects: [],
    };
    const onDone: DefPlanNode = {
      $kind: 'defplan',
      name: 'cairn/on_done@1',
      input: 'cairn/Done@1',
      steps: [{ id: 'end', op: 'end' }],
      edges: [],
      required_caps: [],
      allowed_effects: [],
    };
    const policy: DefPolicyNode = { $kind: 'defpolicy', name: 'cairn/p@1', rules: [] };
    const manifest = {
      $kind: 'manifest',
      schemas: [{ name: 'cairn/Done@1' }, { name: 'cairn/Tick@1' }],
      modules: [{ name: 'cairn/counter@1' }, { name: 'cairn/emitter@1' }],
      plans: [{ name: 'cairn/raise@1' }, { name: 'cairn/on_done@1' }],
      caps: [],
      policies: [{ name: 'cairn/p@1' }],
      triggers: [{ event: 'cairn/Done@1', plan: 'cairn/on_done@1' }],
    };
    const validated = validateManifest(manifest, [
      done,
      tick,
      module('cairn/counter@1', counter.reducer.wasmHash),
      module('cairn/emitter@1', emitter.reducer.wasmHash),
      raise,
      onDone,
      policy,
    ]);
    if (!validated.ok) throw new Error(JSON.stringify(validated.diagnostics, null, 2));
    const config: RuntimeConfig = {
      world: validated.value.world,
      manifestHash: validated.value.manifestHash,
      grants: [],
      policy,
      adapters: {},
      nowNs: () => 0n,
      reducers: { 'cairn/counter@1': counter.reducer, 'cairn/emitter@1': emitter.reducer },
      triggers: manifest.triggers,
    };
    const runtime = new AirRuntime(config);
    runtime.start('cairn/raise@1', { n: 1 }, 'r1');
    runtime.start('cairn/raise@1', { n: 2 }, 'r2');
    expect(runtime.reducerState('cairn/counter@1')).toBe(2);
    expect(runtime.runner.instance('trigger-0-1')?.status).toBe('ended');
    expect(runtime.journal.entries().filter((e) => e.kind === 'PlanStarted').length).toBe(4);
    expect(replayJournal(config, runtime.journal.entries())).toMatchObject({ ok: true, stateHash: runtime.stateHash() });
  });

  it("a reducer's micro-effects pass the same gate, with origin kind reducer", () => {
    const timer = loadReducer(wasm.timer!);
    if (!timer.ok) throw new Error(timer.error);
    const stepped = timer.reducer.step(0, 'x');
    expect(stepped).toEqual({
      ok: true,
      output: { state: 0, domainEvents: [], effects: [{ cap: 't', kind: 'timer.set', params: { deliver_at_ns: 5 } }] },
    });
    const tick = { $kind: 'defschema', name: 'cairn/Tick@1', type: { record: { n: { nat: {} } } } };
    const module = {
      $kind: 'defmodule',
      name: 'cairn/timer@1',
      module_kind: 'reducer',
      wasm_hash: timer.reducer.wasmHash,
      abi: { reducer: { state: { nat: {} }, event: 'cairn/Tick@1', effects_emitted: ['timer.set'] } },
    };
    const raise: DefPlanNode = {
      $kind: 'defplan',
      name: 'cairn/raise@1',
      input: 'cairn/Tick@1',
      steps: [{ id: 'a', op: 'raise_event', reducer: 'cairn/timer@1', event: { ref: '@plan.input' } }],
      edges: [],
      required_caps: [],
      allowed_effects: [],
    };
    const policy: DefPolicyNode = {
      $kind: 'defpolicy',
      name: 'cairn/p@1',
      rules: [{ when: { effect_kind: 'timer.set', origin_kind: 'reducer' }, decision: 'allow' }],
    };
    const manifest = {
      $kind: 'manifest',
      schemas: [{ name: 'cairn/Tick@1' }],
      modules: [{ name: 'cairn/timer@1' }],
      plans: [{ name: 'cairn/raise@1' }],
      caps: [],
      policies: [{ name: 'cairn/p@1' }],
    };
    const validated = validateManifest(manifest, [tick, module, raise, policy]);
    if (!validated.ok) throw new Error(JSON.stringify(validated.diagnostics));
    const intents: unknown[] = [];
    const runtime = new AirRuntime({
      world: validated.value.world,
      manifestHash: validated.value.manifestHash,
      grants: [{ name: 't', cap: 'sys/timer@1', params: {} }],
      policy,
      adapters: {},
      nowNs: () => 0n,
      reducers: { 'cairn/timer@1': timer.reducer },
      onIntent: (origin, _step, intent) => intents.push([origin, intent.kind, intent.origin]),
    });
    runtime.start('cairn/raise@1', { n: 1 }, 'r');
    expect(intents).toEqual([['reducer:cairn/timer@1', 'timer.set', { kind: 'reducer', name: 'cairn/timer@1' }]]);
  });
});
