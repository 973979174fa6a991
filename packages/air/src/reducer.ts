import { decodeCanonical, encodeCanonical } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { type Hash, hashBytes } from './node-hash.js';

/** The part of the WebAssembly API a reducer needs (a global in Node, browsers and isolates alike). */
interface WasmApi {
  Module: {
    new (bytes: Uint8Array): object;
    imports(module: object): { module: string; name: string; kind: string }[];
    exports(module: object): { name: string; kind: string }[];
  };
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum?: number }) => { buffer: ArrayBuffer };
}

/** A domain event a reducer emits: the schema it claims, and the value. */
export interface DomainEvent {
  schema: string;
  value: CborValue;
}

/** What one reducer step produced. */
export interface ReducerOutput {
  state: CborValue;
  domainEvents: DomainEvent[];
  effects: CborValue[];
  ann?: CborValue;
}

/** A loaded reducer module. */
export interface Reducer {
  wasmHash: Hash;
  /** One deterministic step in a fresh instance: envelope `{ state, event, key? }` in, `{ state, domain_events?, effects?, ann? }` out. */
  step(state: CborValue, event: CborValue, key?: CborValue): { ok: true; output: ReducerOutput } | { ok: false; error: string };
}

const OUTPUT_KEYS = new Set(['state', 'domain_events', 'effects', 'ann']);

/**
 * Loads a reducer (AIR v1 §6): a WebAssembly module exporting `alloc(len) -> ptr` and
 * `step(ptr, len) -> (ptr, len)` and its memory (or importing `env.memory`, its only permitted import). The
 * bytes must hash to `wasm_hash` when one is given. Each step runs in a fresh instance, so nothing but the
 * state passed in carries over.
 */
export function loadReducer(bytes: Uint8Array, expectedHash?: string): { ok: true; reducer: Reducer } | { ok: false; error: string } {
  const wasmHash = hashBytes(bytes);
  if (expectedHash !== undefined && expectedHash !== wasmHash)
    return { ok: false, error: `the module hashes to ${wasmHash}, not ${expectedHash}` };
  const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return { ok: false, error: 'WebAssembly is not available here' };
  let module: object;
  try {
    module = new wasm.Module(bytes);
  } catch (error) {
    return { ok: false, error: `not a valid WebAssembly module: ${(error as Error).message}` };
  }
  const imports = wasm.Module.imports(module);
  const foreign = imports.filter((i) => !(i.module === 'env' && i.name === 'memory' && i.kind === 'memory'));
  if (foreign.length > 0)
    return {
      ok: false,
      error: `a reducer may import only env.memory; it imports ${foreign.map((i) => `${i.module}.${i.name}`).join(', ')}`,
    };
  const exported = new Map(wasm.Module.exports(module).map((e) => [e.name, e.kind]));
  for (const [name, kind] of [
    ['alloc', 'function'],
    ['step', 'function'],
  ] as const) {
    if (exported.get(name) !== kind) return { ok: false, error: `a reducer must export the function "${name}"` };
  }
  if (imports.length === 0 && exported.get('memory') !== 'memory')
    return { ok: false, error: 'a reducer must export its memory (or import env.memory)' };

  const reducer: Reducer = {
    wasmHash,
    step(state, event, key) {
      try {
        const memoryImport = imports.length > 0 ? new wasm.Memory({ initial: 2, maximum: 256 }) : undefined;
        const instance = new wasm.Instance(module, memoryImport ? { env: { memory: memoryImport } } : {});
        const memory = (memoryImport ?? (instance.exports.memory as { buffer: ArrayBuffer })) as { buffer: ArrayBuffer };
        const envelope: Record<string, CborValue> = { state, event };
        if (key !== undefined) envelope.key = key;
        const input = encodeCanonical(envelope);
        const ptr = (instance.exports.alloc as (len: number) => number)(input.length);
        new Uint8Array(memory.buffer, ptr, input.length).set(input);
        const result = (instance.exports.step as (p: number, l: number) => unknown)(ptr, input.length);
        if (!Array.isArray(result) || result.length !== 2) return { ok: false, error: 'step must return (ptr, len)' };
        const [outPtr, outLen] = result as [number, number];
        if (outPtr < 0 || outLen < 0 || outPtr + outLen > memory.buffer.byteLength)
          return { ok: false, error: 'step returned a range outside its memory' };
        const output = decodeCanonical(new Uint8Array(memory.buffer, outPtr, outLen).slice());
        return parseOutput(output);
      } catch (error) {
        return { ok: false, error: `the reducer failed: ${(error as Error).message ?? String(error)}` };
      }
    },
  };
  return { ok: true, reducer };
}

function parseOutput(output: CborValue): { ok: true; output: ReducerOutput } | { ok: false; error: string } {
  if (
    typeof output !== 'object' ||
    output === null ||
    Array.isArray(output) ||
    output instanceof Uint8Array ||
    output instanceof Map ||
    !('state' in output)
  ) {
    return { ok: false, error: 'the output must be a map with "state"' };
  }
  const o = output as Record<string, CborValue>;
  const unknown = Object.keys(o).filter((k) => !OUTPUT_KEYS.has(k));
  if (unknown.length > 0) return { ok: false, error: `unknown output fields: ${unknown.join(', ')}` };
  const events = o.domain_events ?? [];
  if (!Array.isArray(events)) return { ok: false, error: '"domain_events" must be a list' };
  const domainEvents: DomainEvent[] = [];
  for (const event of events as CborValue[]) {
    const e = event as Record<string, CborValue>;
    if (typeof e !== 'object' || e === null || typeof e.schema !== 'string' || !('value' in e))
      return { ok: false, error: 'a domain event is { schema, value }' };
    domainEvents.push({ schema: e.schema, value: e.value! });
  }
  const effects = o.effects ?? [];
  if (!Array.isArray(effects)) return { ok: false, error: '"effects" must be a list' };
  const out: ReducerOutput = { state: o.state!, domainEvents, effects: effects as CborValue[] };
  if (o.ann !== undefined) out.ann = o.ann;
  return { ok: true, output: out };
}
