const COMMON = 'common.schema.json#/$defs/';
const ref = (name: string) => ({ $ref: COMMON + name });
const header = (kind: string, title: string) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: `https://cairn.dev/air/v1/${kind}.schema.json`,
  title,
  type: 'object',
});
const kindField = (kind: string) => ({ $kind: { const: kind } });

/** `defschema`: a named type. */
export const defschemaSchema = {
  ...header('defschema', 'AIR v1 defschema'),
  required: ['$kind', 'name', 'type'],
  additionalProperties: false,
  properties: { ...kindField('defschema'), name: ref('Name'), type: ref('TypeExpr') },
};

/** `defmodule`: a WASM reducer and its interface. */
export const defmoduleSchema = {
  ...header('defmodule', 'AIR v1 defmodule'),
  required: ['$kind', 'name', 'module_kind', 'wasm_hash', 'abi'],
  additionalProperties: false,
  properties: {
    ...kindField('defmodule'),
    name: ref('Name'),
    module_kind: { const: 'reducer' },
    wasm_hash: ref('Hash'),
    abi: {
      type: 'object',
      required: ['reducer'],
      additionalProperties: false,
      properties: {
        reducer: {
          type: 'object',
          required: ['state', 'event'],
          additionalProperties: false,
          properties: {
            state: ref('SchemaRef'),
            event: ref('SchemaRef'),
            annotations: ref('SchemaRef'),
            effects_emitted: { type: 'array', items: ref('EffectKind'), uniqueItems: true },
            cap_slots: {
              type: 'object',
              propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$' },
              additionalProperties: ref('CapType'),
            },
          },
        },
      },
    },
    key_schema: ref('SchemaRef'),
  },
};

const step = (op: string, required: string[], properties: Record<string, unknown>) => ({
  type: 'object',
  required: ['id', 'op', ...required],
  additionalProperties: false,
  properties: { id: ref('Identifier'), op: { const: op }, ...properties },
});

/** `defplan`: a finite DAG of steps. */
export const defplanSchema = {
  ...header('defplan', 'AIR v1 defplan'),
  required: ['$kind', 'name', 'input', 'steps', 'edges', 'required_caps', 'allowed_effects'],
  additionalProperties: false,
  properties: {
    ...kindField('defplan'),
    name: ref('Name'),
    input: ref('SchemaRef'),
    output: ref('SchemaRef'),
    locals: { type: 'object', propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$' }, additionalProperties: ref('SchemaRef') },
    steps: {
      type: 'array',
      minItems: 1,
      items: {
        title: 'step',
        type: 'object',
        required: ['op'],
        properties: { op: { enum: ['raise_event', 'emit_effect', 'await_receipt', 'await_event', 'assign', 'end'] } },
        allOf: [
          {
            if: { properties: { op: { const: 'raise_event' } } },
            then: step('raise_event', ['reducer', 'event'], { reducer: ref('Name'), key: ref('Expr'), event: ref('Expr') }),
          },
          {
            if: { properties: { op: { const: 'emit_effect' } } },
            then: step('emit_effect', ['kind', 'params', 'cap', 'bind'], {
              kind: ref('EffectKind'),
              params: ref('Expr'),
              cap: ref('Identifier'),
              bind: {
                type: 'object',
                required: ['effect_id_as'],
                additionalProperties: false,
                properties: { effect_id_as: ref('Identifier') },
              },
            }),
          },
          {
            if: { properties: { op: { const: 'await_receipt' } } },
            then: step('await_receipt', ['for', 'bind'], {
              for: ref('Expr'),
              bind: { type: 'object', required: ['as'], additionalProperties: false, properties: { as: ref('Identifier') } },
            }),
          },
          {
            if: { properties: { op: { const: 'await_event' } } },
            then: step('await_event', ['event', 'bind'], {
              event: ref('SchemaRef'),
              where: ref('Expr'),
              bind: { type: 'object', required: ['as'], additionalProperties: false, properties: { as: ref('Identifier') } },
            }),
          },
          {
            if: { properties: { op: { const: 'assign' } } },
            then: step('assign', ['expr', 'bind'], {
              expr: ref('Expr'),
              bind: { type: 'object', required: ['as'], additionalProperties: false, properties: { as: ref('Identifier') } },
            }),
          },
          { if: { properties: { op: { const: 'end' } } }, then: step('end', [], { result: ref('Expr') }) },
        ],
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        required: ['from', 'to'],
        additionalProperties: false,
        properties: { from: ref('Identifier'), to: ref('Identifier'), when: ref('Expr') },
      },
    },
    required_caps: { type: 'array', items: ref('Identifier'), uniqueItems: true },
    allowed_effects: { type: 'array', items: ref('EffectKind'), uniqueItems: true },
    invariants: { type: 'array', items: ref('Expr') },
  },
};

/** `defcap`: a capability type and the schema of its grants' parameters. */
export const defcapSchema = {
  ...header('defcap', 'AIR v1 defcap'),
  required: ['$kind', 'name', 'cap_type', 'schema'],
  additionalProperties: false,
  properties: { ...kindField('defcap'), name: ref('Name'), cap_type: ref('CapType'), schema: ref('SchemaRef') },
};

/** `defpolicy`: ordered allow/deny rules; first match wins, default deny. */
export const defpolicySchema = {
  ...header('defpolicy', 'AIR v1 defpolicy'),
  required: ['$kind', 'name', 'rules'],
  additionalProperties: false,
  properties: {
    ...kindField('defpolicy'),
    name: ref('Name'),
    rules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['when', 'decision'],
        additionalProperties: false,
        properties: {
          when: {
            type: 'object',
            additionalProperties: false,
            properties: {
              effect_kind: {
                title: 'effect kind or kind.* pattern',
                type: 'string',
                pattern: '^[a-z][a-z0-9_-]*(\\.[a-z0-9_-]+)*(\\.\\*)?$',
              },
              cap_name: { type: 'string' },
              host: { type: 'string' },
              method: { type: 'string' },
              origin_kind: { enum: ['plan', 'reducer', 'agent'] },
              origin_name: ref('Name'),
            },
          },
          decision: { enum: ['allow', 'deny'] },
        },
      },
    },
  },
};

const namedRefs = {
  type: 'array',
  items: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: ref('Name'), hash: ref('Hash') } },
};

/** `manifest`: the root catalog of a world's control plane. */
export const manifestSchema = {
  ...header('manifest', 'AIR v1 manifest'),
  required: ['$kind', 'schemas', 'modules', 'plans', 'caps', 'policies'],
  additionalProperties: false,
  properties: {
    ...kindField('manifest'),
    schemas: namedRefs,
    modules: namedRefs,
    plans: namedRefs,
    caps: namedRefs,
    policies: namedRefs,
    routing: {
      type: 'object',
      additionalProperties: false,
      properties: {
        events: {
          type: 'array',
          items: {
            type: 'object',
            required: ['event', 'reducer'],
            additionalProperties: false,
            properties: { event: ref('SchemaRef'), reducer: ref('Name'), key_field: { type: 'string' } },
          },
        },
        inboxes: {
          type: 'array',
          items: {
            type: 'object',
            required: ['source', 'reducer'],
            additionalProperties: false,
            properties: { source: { type: 'string' }, reducer: ref('Name') },
          },
        },
      },
    },
    triggers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['event', 'plan'],
        additionalProperties: false,
        properties: { event: ref('SchemaRef'), plan: ref('Name'), correlate_by: { type: 'string' } },
      },
    },
    defaults: {
      type: 'object',
      additionalProperties: false,
      properties: { policy: ref('Name'), cap_grants: { type: 'array', items: ref('CapGrant') } },
    },
    module_bindings: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['slots'],
        additionalProperties: false,
        properties: { slots: { type: 'object', additionalProperties: ref('Identifier') } },
      },
    },
  },
};

/** Every definition schema by its `$kind`. */
export const KIND_SCHEMAS = {
  defschema: defschemaSchema,
  defmodule: defmoduleSchema,
  defplan: defplanSchema,
  defcap: defcapSchema,
  defpolicy: defpolicySchema,
  manifest: manifestSchema,
} as const;
