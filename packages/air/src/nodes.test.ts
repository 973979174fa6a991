import { describe, expect, it } from 'vitest';
import { parseNode } from './nodes.js';
import { readVectors } from './test-support/vectors.js';

describe('parseNode', () => {
  it('accepts the reference vectors', () => {
    for (const file of ['air/schemas.json', 'air/plans.json']) {
      for (const vector of readVectors<{ json: unknown }[]>(file)) expect(parseNode(vector.json)).toMatchObject({ ok: true });
    }
  });

  it.each([
    ['not an object', [], [{ code: 'node.shape', message: 'an AIR node is a JSON object with a "$kind"', path: '' }]],
    [
      'defmigration',
      { $kind: 'defmigration', name: 'a/m@1' },
      [
        {
          code: 'node.reserved-kind',
          message: '"defmigration" is reserved in AIR v1: migrations are not supported yet',
          path: '/$kind',
          name: 'a/m@1',
        },
      ],
    ],
    [
      'an unknown kind',
      { $kind: 'defthing' },
      [
        {
          code: 'node.kind',
          message: 'unknown $kind "defthing"; expected one of defschema, defmodule, defplan, defcap, defpolicy, manifest',
          path: '/$kind',
        },
      ],
    ],
    [
      'a missing kind',
      {},
      [
        {
          code: 'node.kind',
          message: 'missing "$kind"; expected one of defschema, defmodule, defplan, defcap, defpolicy, manifest',
          path: '/$kind',
        },
      ],
    ],
    [
      'a schema with a bad name, an unknown field and no type',
      { $kind: 'defschema', name: 'Point@1', extra: 1 },
      [
        { code: 'structure.missing-field', message: 'missing required field "type"', path: '/type', name: 'Point@1' },
        { code: 'structure.unknown-field', message: 'unknown field "extra"', path: '/extra', name: 'Point@1' },
        { code: 'structure.format', message: 'is not a valid name (namespace/name@N)', path: '/name', name: 'Point@1' },
      ],
    ],
    [
      'a plan step with an unknown op and a policy-style typo',
      {
        $kind: 'defplan',
        name: 'a/p@1',
        input: 'a/In@1',
        steps: [{ id: 's', op: 'spawn' }],
        edges: [],
        required_caps: [],
        allowed_effects: [],
      },
      [
        {
          code: 'structure.value',
          message: 'must be one of "raise_event", "emit_effect", "await_receipt", "await_event", "assign", "end"',
          path: '/steps/0/op',
          name: 'a/p@1',
        },
      ],
    ],
    [
      'an emit_effect without bind',
      {
        $kind: 'defplan',
        name: 'a/p@1',
        input: 'a/In@1',
        steps: [{ id: 'e', op: 'emit_effect', kind: 'http.request', params: { null: {} }, cap: 'c' }],
        edges: [],
        required_caps: [],
        allowed_effects: [],
      },
      [{ code: 'structure.missing-field', message: 'missing required field "bind"', path: '/steps/0/bind', name: 'a/p@1' }],
    ],
    [
      'a policy with a decision outside allow/deny',
      { $kind: 'defpolicy', name: 'a/pol@1', rules: [{ when: { effect_kind: 'llm.generate' }, decision: 'require_approval' }] },
      [{ code: 'structure.value', message: 'must be one of "allow", "deny"', path: '/rules/0/decision', name: 'a/pol@1' }],
    ],
    [
      'a schema with a bad type',
      { $kind: 'defschema', name: 'a/T@1', type: { record: { x: { float: {} } } } },
      [
        {
          code: 'type.unknown',
          message:
            'unknown type "float"; expected one of bool, int, nat, dec128, bytes, text, time, duration, hash, uuid, unit, record, variant, list, set, map, option, ref',
          path: '/type/record/x',
          name: 'a/T@1',
        },
      ],
    ],
  ])('refuses %s', (_what, json, expected) => {
    const result = parseNode(json);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.diagnostics).toEqual(expected);
  });
});
