import { type AirResult, diagnostic } from './diagnostic.js';
import { type AirKind, checkStructure, KINDS } from './structure.js';
import { parseType } from './types.js';

/** A schema reference in the text form: a name, a content hash, or an inline type. */
export type SchemaRefJson = string | Readonly<Record<string, unknown>>;

export interface DefSchemaNode {
  $kind: 'defschema';
  name: string;
  type: Readonly<Record<string, unknown>>;
}

export interface DefModuleNode {
  $kind: 'defmodule';
  name: string;
  module_kind: 'reducer';
  wasm_hash: string;
  abi: {
    reducer: {
      state: SchemaRefJson;
      event: SchemaRefJson;
      annotations?: SchemaRefJson;
      effects_emitted?: string[];
      cap_slots?: Record<string, string>;
    };
  };
  key_schema?: SchemaRefJson;
}

export type PlanStep =
  | { id: string; op: 'raise_event'; reducer: string; key?: unknown; event: unknown }
  | { id: string; op: 'emit_effect'; kind: string; params: unknown; cap: string; bind: { effect_id_as: string } }
  | { id: string; op: 'await_receipt'; for: unknown; bind: { as: string } }
  | { id: string; op: 'await_event'; event: SchemaRefJson; where?: unknown; bind: { as: string } }
  | { id: string; op: 'assign'; expr: unknown; bind: { as: string } }
  | { id: string; op: 'end'; result?: unknown };

export interface DefPlanNode {
  $kind: 'defplan';
  name: string;
  input: SchemaRefJson;
  output?: SchemaRefJson;
  locals?: Record<string, SchemaRefJson>;
  steps: PlanStep[];
  edges: { from: string; to: string; when?: unknown }[];
  required_caps: string[];
  allowed_effects: string[];
  invariants?: unknown[];
}

export interface DefCapNode {
  $kind: 'defcap';
  name: string;
  cap_type: string;
  schema: SchemaRefJson;
}

export interface PolicyRule {
  when: {
    effect_kind?: string;
    cap_name?: string;
    host?: string;
    method?: string;
    origin_kind?: 'plan' | 'reducer' | 'agent';
    origin_name?: string;
  };
  decision: 'allow' | 'deny';
}

export interface DefPolicyNode {
  $kind: 'defpolicy';
  name: string;
  rules: PolicyRule[];
}

export interface CapGrantJson {
  name: string;
  cap: string;
  params: unknown;
  expiry_ns?: number;
  budget?: { tokens?: number; bytes?: number; cents?: number; ms?: number };
}

export interface NamedRef {
  name: string;
  hash?: string;
}

export interface ManifestNode {
  $kind: 'manifest';
  schemas: NamedRef[];
  modules: NamedRef[];
  plans: NamedRef[];
  caps: NamedRef[];
  policies: NamedRef[];
  routing?: { events?: { event: SchemaRefJson; reducer: string; key_field?: string }[]; inboxes?: { source: string; reducer: string }[] };
  triggers?: { event: SchemaRefJson; plan: string; correlate_by?: string }[];
  defaults?: { policy?: string; cap_grants?: CapGrantJson[] };
  module_bindings?: Record<string, { slots: Record<string, string> }>;
}

/** Any AIR node. */
export type AirNode = DefSchemaNode | DefModuleNode | DefPlanNode | DefCapNode | DefPolicyNode | ManifestNode;
/** Any definition (every node but the manifest). */
export type AirDefinition = Exclude<AirNode, ManifestNode>;

/**
 * Parses the JSON text form of a node of any kind: `$kind` picks the JSON Schema it must satisfy. The
 * reserved kind `defmigration` and unknown kinds are refused with a diagnostic saying so.
 */
export function parseNode(json: unknown): AirResult<AirNode> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, diagnostics: [diagnostic('node.shape', 'an AIR node is a JSON object with a "$kind"', '')] };
  }
  const kind = (json as { $kind?: unknown }).$kind;
  const name = typeof (json as { name?: unknown }).name === 'string' ? (json as { name: string }).name : undefined;
  const extra = name === undefined ? {} : { name };
  if (kind === 'defmigration') {
    return {
      ok: false,
      diagnostics: [
        diagnostic('node.reserved-kind', '"defmigration" is reserved in AIR v1: migrations are not supported yet', '/$kind', extra),
      ],
    };
  }
  if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) {
    const message = kind === undefined ? 'missing "$kind"' : `unknown $kind ${JSON.stringify(kind)}`;
    return { ok: false, diagnostics: [diagnostic('node.kind', `${message}; expected one of ${KINDS.join(', ')}`, '/$kind', extra)] };
  }
  let problems = checkStructure(kind as AirKind, json, name);
  if (kind === 'defschema' && 'type' in json) {
    // The type parser explains a bad type better than the schema's alternatives do.
    problems = problems.filter((d) => d.path !== '/type' && !d.path.startsWith('/type/'));
    const type = parseType((json as { type: unknown }).type, '/type');
    if (!type.ok) problems.push(...type.diagnostics.map((d) => ({ ...d, ...extra })));
  }
  return problems.length === 0 ? { ok: true, value: json as AirNode } : { ok: false, diagnostics: problems };
}
