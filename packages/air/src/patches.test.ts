import { describe, expect, it } from 'vitest';
import { Journal } from './journal.js';
import { hashNode } from './node-hash.js';
import { applyPatch, type ControlPlane, Governance, type PatchDocument } from './patches.js';
import { validateManifest } from './validate.js';

const point = { $kind: 'defschema', name: 'a/Point@1', type: { record: { x: { int: {} }, y: { int: {} } } } };
const plan = {
  $kind: 'defplan',
  name: 'a/plan@1',
  input: 'a/Point@1',
  steps: [{ id: 'end', op: 'end' }],
  edges: [],
  required_caps: [],
  allowed_effects: [],
};
const policy = { $kind: 'defpolicy', name: 'a/policy@1', rules: [{ when: { effect_kind: 'timer.set' }, decision: 'allow' }] };

function plane(): { plane: ControlPlane; hash: string } {
  const manifest = {
    $kind: 'manifest',
    schemas: [{ name: 'a/Point@1' }],
    modules: [],
    plans: [{ name: 'a/plan@1' }],
    caps: [],
    policies: [{ name: 'a/policy@1' }],
  };
  const validated = validateManifest(manifest, [point, plan, policy]);
  if (!validated.ok) throw new Error(JSON.stringify(validated.diagnostics));
  return {
    plane: { manifest: validated.value.manifest as unknown as Record<string, unknown>, definitions: [point, plan, policy] },
    hash: validated.value.manifestHash,
  };
}

describe('patches', () => {
  it('applies every operation in one transaction and revalidates', () => {
    const { plane: current, hash } = plane();
    const point3 = { ...point, name: 'a/Point3@1', type: { record: { x: { int: {} }, y: { int: {} }, z: { int: {} } } } };
    const timerPlan = {
      ...plan,
      name: 'a/timer@1',
      steps: [
        {
          id: 't',
          op: 'emit_effect',
          kind: 'timer.set',
          params: { record: { deliver_at_ns: { nat: 1 } } },
          cap: 'timers',
          bind: { effect_id_as: 'tid' },
        },
      ],
      required_caps: ['timers'],
      allowed_effects: ['timer.set'],
    };
    const document: PatchDocument = {
      base_manifest_hash: hash,
      patches: [
        { op: 'add_def', kind: 'defschema', node: point3 },
        { op: 'add_def', kind: 'defplan', node: timerPlan },
        { op: 'replace_def', kind: 'defplan', name: 'a/plan@1', new_node: { ...plan, input: 'a/Point3@1' }, pre_hash: hashNode(plan) },
        {
          op: 'set_manifest_refs',
          add: [
            { kind: 'defschema', name: 'a/Point3@1' },
            { kind: 'defplan', name: 'a/timer@1' },
          ],
        },
        { op: 'set_defaults', policy: 'a/policy@1', cap_grants: [{ name: 'timers', cap: 'sys/timer@1', params: {} }] },
      ],
    };
    const applied = applyPatch(current, hash, document);
    if (!applied.ok) throw new Error(JSON.stringify(applied.diagnostics));
    expect(applied.value.validated.world.get('defplan', 'a/plan@1')?.node.input).toBe('a/Point3@1');
    expect(applied.value.validated.manifestHash).not.toBe(hash);
    expect(current.definitions.length).toBe(3);
  });

  it.each([
    ['a stale base', () => ({ base_manifest_hash: 'sha256:' + '0'.repeat(64), patches: [] }), 'patch.stale-base'],
    [
      'a wrong pre-hash',
      (h: string) => ({
        base_manifest_hash: h,
        patches: [{ op: 'remove_def', kind: 'defplan', name: 'a/plan@1', pre_hash: 'sha256:' + '1'.repeat(64) }],
      }),
      'patch.pre-hash',
    ],
    [
      'adding what exists',
      (h: string) => ({ base_manifest_hash: h, patches: [{ op: 'add_def', kind: 'defschema', node: point }] }),
      'patch.exists',
    ],
    [
      'removing a schema still used',
      (h: string) => ({
        base_manifest_hash: h,
        patches: [{ op: 'remove_def', kind: 'defschema', name: 'a/Point@1', pre_hash: hashNode(point) }],
      }),
      'ref.unresolved',
    ],
  ])('refuses %s, changing nothing', (_what, make, code) => {
    const { plane: current, hash } = plane();
    const result = applyPatch(current, hash, make(hash) as PatchDocument);
    expect(result).toMatchObject({ ok: false, diagnostics: expect.arrayContaining([expect.objectContaining({ code })]) });
    expect(current.definitions).toEqual([point, plan, policy]);
  });
});

describe('governance', () => {
  it('Proposed → ShadowReport → Approved → Applied, journaled, with typed diffs', () => {
    const { plane: current, hash } = plane();
    const journal = Journal.create();
    const governance = new Governance(current, hash, journal);
    const patchHash = governance.propose(
      {
        base_manifest_hash: hash,
        patches: [
          {
            op: 'replace_def',
            kind: 'defschema',
            name: 'a/Point@1',
            new_node: { ...point, type: { record: { x: { int: {} }, y: { nat: {} } } } },
            pre_hash: hashNode(point),
          },
        ],
      },
      'ada',
    );
    expect(governance.apply(patchHash)).toMatchObject({ ok: false, diagnostics: [{ code: 'governance.state' }] });
    const shadow = governance.shadow(patchHash);
    expect(shadow.ok && shadow.value.diffs).toEqual([
      { kind: 'defschema', name: 'a/Point@1', change: 'replaced', delta: { type: { record: { y: { int: [{}, 0, 0], nat: [{}] } } } } },
    ]);
    expect(governance.approve(patchHash, 'grace')).toEqual({ ok: true, value: true });
    const applied = governance.apply(patchHash);
    expect(applied.ok && applied.value.manifestHash).toBe(governance.current.hash);
    expect(journal.entries().map((e) => e.kind)).toEqual(['Proposed', 'ShadowReport', 'Approved', 'Applied']);
  });

  it('a patch that does not validate is Rejected with the diagnostics', () => {
    const { plane: current, hash } = plane();
    const journal = Journal.create();
    const governance = new Governance(current, hash, journal);
    const patchHash = governance.propose(
      {
        base_manifest_hash: hash,
        patches: [
          { op: 'replace_def', kind: 'defplan', name: 'a/plan@1', new_node: { ...plan, input: 'a/Nope@1' }, pre_hash: hashNode(plan) },
        ],
      },
      'ada',
    );
    expect(governance.shadow(patchHash)).toMatchObject({ ok: false, diagnostics: [{ code: 'ref.unresolved' }] });
    expect(journal.entries().map((e) => e.kind)).toEqual(['Proposed', 'Rejected']);
    expect(governance.approve(patchHash, 'grace')).toMatchObject({ ok: false });
    expect(governance.current.hash).toBe(hash);
  });
});
