/** A definition node in its JSON text form. */
export type AirDefinitionJson = { readonly $kind: string; readonly name: string } & Readonly<Record<string, unknown>>;

const T = {
  text: { text: {} },
  nat: { nat: {} },
  int: { int: {} },
  hash: { hash: {} },
  bytes: { bytes: {} },
  dec128: { dec128: {} },
  textMap: { map: { key: { text: {} }, value: { text: {} } } },
  textSet: { set: { text: {} } },
  status: { variant: { ok: { unit: {} }, error: { unit: {} }, timeout: { unit: {} } } },
};
const schema = (name: string, type: unknown): AirDefinitionJson => ({ $kind: 'defschema', name, type });
const option = (type: unknown) => ({ option: type });
const receiptEvent = (params: string, receipt: string) => ({
  record: {
    intent_hash: T.hash,
    reducer: T.text,
    effect_kind: T.text,
    adapter_id: T.text,
    status: T.status,
    requested: { ref: params },
    receipt: { ref: receipt },
    cost_cents: option(T.nat),
    signature: T.bytes,
  },
});

/** The `sys/*` schemas of AIR v1 §7–9: effect parameters and receipts, reducer receipt events, capability parameters. */
export const BUILTIN_SCHEMAS: readonly AirDefinitionJson[] = [
  schema('sys/HttpRequestParams@1', { record: { method: T.text, url: T.text, headers: T.textMap, body_ref: option(T.hash) } }),
  schema('sys/HttpRequestReceipt@1', {
    record: {
      status: T.int,
      headers: T.textMap,
      body_ref: option(T.hash),
      timings: { record: { start_ns: T.nat, end_ns: T.nat } },
      adapter_id: T.text,
    },
  }),
  schema('sys/BlobPutParams@1', { record: { namespace: T.text, blob_ref: T.hash } }),
  schema('sys/BlobPutReceipt@1', { record: { blob_ref: T.hash, size: T.nat } }),
  schema('sys/BlobGetParams@1', { record: { namespace: T.text, key: T.text } }),
  schema('sys/BlobGetReceipt@1', { record: { blob_ref: T.hash, size: T.nat } }),
  schema('sys/TimerSetParams@1', { record: { deliver_at_ns: T.nat, key: option(T.text) } }),
  schema('sys/TimerSetReceipt@1', { record: { delivered_at_ns: T.nat, key: option(T.text) } }),
  schema('sys/LlmGenerateParams@1', {
    record: {
      provider: T.text,
      model: T.text,
      temperature: T.dec128,
      max_tokens: T.nat,
      input_ref: T.hash,
      tools: option({ list: T.text }),
    },
  }),
  schema('sys/LlmGenerateReceipt@1', {
    record: { output_ref: T.hash, token_usage: { record: { prompt: T.nat, completion: T.nat } }, cost_cents: T.nat, provider_id: T.text },
  }),
  schema('sys/TimerFired@1', receiptEvent('sys/TimerSetParams@1', 'sys/TimerSetReceipt@1')),
  schema('sys/BlobPutResult@1', receiptEvent('sys/BlobPutParams@1', 'sys/BlobPutReceipt@1')),
  schema('sys/BlobGetResult@1', receiptEvent('sys/BlobGetParams@1', 'sys/BlobGetReceipt@1')),
  schema('sys/HttpOutCapParams@1', { record: { hosts: T.textSet, verbs: T.textSet, path_prefixes: option(T.textSet) } }),
  schema('sys/LlmBasicCapParams@1', {
    record: {
      providers: option(T.textSet),
      models: option(T.textSet),
      max_tokens_max: option(T.nat),
      temperature_max: option(T.dec128),
      tools_allow: option(T.textSet),
    },
  }),
  schema('sys/BlobCapParams@1', { record: { namespaces: option(T.textSet) } }),
  schema('sys/TimerCapParams@1', { record: {} }),
  schema('sys/FsReadParams@1', { record: { path: T.text, stat_only: option({ bool: {} }) } }),
  schema('sys/FsReadReceipt@1', { record: { path: T.text, kind: T.text, size: T.nat, content_ref: option(T.hash) } }),
  schema('sys/FsWriteParams@1', {
    record: {
      op: T.text,
      path: T.text,
      to: option(T.text),
      size: T.nat,
      content_ref: option(T.hash),
      content: option(T.bytes),
      mode: option(T.nat),
      target: option(T.text),
    },
  }),
  schema('sys/FsWriteReceipt@1', { record: { op: T.text, path: T.text, to: option(T.text), size: T.nat, created: { bool: {} } } }),
  schema('sys/FsListParams@1', { record: { path: T.text, recursive: option({ bool: {} }) } }),
  schema('sys/FsListReceipt@1', { record: { entries: { list: T.text }, truncated: option({ bool: {} }), result_ref: option(T.hash) } }),
  schema('sys/FsSearchParams@1', { record: { pattern: T.text, path: T.text, content: { bool: {} } } }),
  schema('sys/FsSearchReceipt@1', { record: { matches: { list: T.text }, truncated: option({ bool: {} }), result_ref: option(T.hash) } }),
  schema('sys/CheckRunParams@1', { record: { name: T.text, proposal_ref: T.hash, timeout_ms: T.nat } }),
  schema('sys/CheckRunReceipt@1', {
    record: {
      name: T.text,
      status: T.text,
      exit_code: option(T.int),
      error: option(T.text),
      duration_ms: T.nat,
      output_ref: T.hash,
      output_size: T.nat,
      truncated: { bool: {} },
      view: T.text,
      sealed: { bool: {} },
    },
  }),
  schema('sys/CheckCapParams@1', { record: { checks: T.textSet } }),
  schema('sys/FsCapParams@1', {
    record: {
      read_prefixes: T.textSet,
      write_prefixes: option(T.textSet),
      max_write_bytes: option(T.nat),
      read_exclude: option(T.textSet),
      write_exclude: option(T.textSet),
    },
  }),
];

/** The standard capability types of AIR v1 §9. */
export const BUILTIN_CAPS: readonly AirDefinitionJson[] = [
  { $kind: 'defcap', name: 'sys/http.out@1', cap_type: 'http.out', schema: 'sys/HttpOutCapParams@1' },
  { $kind: 'defcap', name: 'sys/llm.basic@1', cap_type: 'llm.basic', schema: 'sys/LlmBasicCapParams@1' },
  { $kind: 'defcap', name: 'sys/blob@1', cap_type: 'blob', schema: 'sys/BlobCapParams@1' },
  { $kind: 'defcap', name: 'sys/timer@1', cap_type: 'timer', schema: 'sys/TimerCapParams@1' },
  { $kind: 'defcap', name: 'sys/fs@1', cap_type: 'fs', schema: 'sys/FsCapParams@1' },
  { $kind: 'defcap', name: 'sys/check@1', cap_type: 'check', schema: 'sys/CheckCapParams@1' },
];

/** One effect kind: its parameter and receipt schemas and the capability type that governs it. */
export interface EffectSpec {
  params: string;
  receipt: string;
  capType: string;
}

/** The built-in effect catalog: AIR v1 §7, plus Cairn's file-system kinds (the `fs` capability) and checks (`check`). */
export const EFFECT_CATALOG: Readonly<Record<string, EffectSpec>> = {
  'http.request': { params: 'sys/HttpRequestParams@1', receipt: 'sys/HttpRequestReceipt@1', capType: 'http.out' },
  'blob.put': { params: 'sys/BlobPutParams@1', receipt: 'sys/BlobPutReceipt@1', capType: 'blob' },
  'blob.get': { params: 'sys/BlobGetParams@1', receipt: 'sys/BlobGetReceipt@1', capType: 'blob' },
  'timer.set': { params: 'sys/TimerSetParams@1', receipt: 'sys/TimerSetReceipt@1', capType: 'timer' },
  'llm.generate': { params: 'sys/LlmGenerateParams@1', receipt: 'sys/LlmGenerateReceipt@1', capType: 'llm.basic' },
  'fs.read': { params: 'sys/FsReadParams@1', receipt: 'sys/FsReadReceipt@1', capType: 'fs' },
  'fs.write': { params: 'sys/FsWriteParams@1', receipt: 'sys/FsWriteReceipt@1', capType: 'fs' },
  'fs.list': { params: 'sys/FsListParams@1', receipt: 'sys/FsListReceipt@1', capType: 'fs' },
  'fs.search': { params: 'sys/FsSearchParams@1', receipt: 'sys/FsSearchReceipt@1', capType: 'fs' },
  'check.run': { params: 'sys/CheckRunParams@1', receipt: 'sys/CheckRunReceipt@1', capType: 'check' },
};

/** The capability types a `defcap` may declare, with the built-in parameter schema each must be compatible with. */
export const CAP_TYPES: Readonly<Record<string, string>> = {
  'http.out': 'sys/HttpOutCapParams@1',
  'llm.basic': 'sys/LlmBasicCapParams@1',
  blob: 'sys/BlobCapParams@1',
  timer: 'sys/TimerCapParams@1',
  fs: 'sys/FsCapParams@1',
  check: 'sys/CheckCapParams@1',
};
