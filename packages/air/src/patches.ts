import { create as createDiffer } from 'jsondiffpatch';
import { EFFECT_CATALOG } from './builtins.js';
import type { CborValue } from './cbor-value.js';
import { type AirDiagnostic, type AirResult, diagnostic, pointer } from './diagnostic.js';
import type { Journal } from './journal.js';
import { type Hash, hashNode } from './node-hash.js';
import type { CapGrantJson, ManifestNode } from './nodes.js';
import { type ValidatedManifest, validateManifest } from './validate.js';

type DefKind = 'defschema' | 'defmodule' | 'defplan' | 'defcap' | 'defpolicy';
const LIST_OF: Record<DefKind, 'schemas' | 'modules' | 'plans' | 'caps' | 'policies'> = {
  defschema: 'schemas',
  defmodule: 'modules',
  defplan: 'plans',
  defcap: 'caps',
  defpolicy: 'policies',
};

/** One change to the control plane (AIR v1 §14). */
export type PatchOp =
  | { op: 'add_def'; kind: DefKind; node: Record<string, unknown> }
  | { op: 'replace_def'; kind: DefKind; name: string; new_node: Record<string, unknown>; pre_hash: string }
  | { op: 'remove_def'; kind: DefKind; name: string; pre_hash: string }
  | { op: 'set_manifest_refs'; add?: { kind: DefKind; name: string; hash?: string }[]; remove?: { kind: DefKind; name: string }[] }
  | { op: 'set_defaults'; policy?: string; cap_grants?: CapGrantJson[] };

/** A patch against one manifest version. */
export interface PatchDocument {
  base_manifest_hash: string;
  patches: PatchOp[];
}

/** A manifest with the definitions it can draw on. */
export interface ControlPlane {
  manifest: Record<string, unknown>;
  definitions: Record<string, unknown>[];
}

/** What a patch changes, per definition, with a structural delta (jsondiffpatch). */
export interface DefinitionDiff {
  kind: string;
  name: string;
  change: 'added' | 'replaced' | 'removed';
  delta?: unknown;
}

/** Definitions are JSON text form, so a JSON round trip is a deep copy (and needs no host API). */
function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const differ = createDiffer({
  objectHash: (item: object) => JSON.stringify((item as { id?: unknown; name?: unknown }).id ?? (item as { name?: unknown }).name ?? item),
});

/**
 * Applies a patch to a control plane as one transaction: the base hash must be the current manifest's, each
 * replace or remove must name the current hash of what it changes, and the result is validated whole. Either
 * every operation applies and the new plane validates, or nothing changes and the diagnostics say why.
 */
export function applyPatch(
  current: ControlPlane,
  currentHash: string,
  document: PatchDocument,
): AirResult<{ plane: ControlPlane; validated: ValidatedManifest }> {
  const problems: AirDiagnostic[] = [];
  if (document.base_manifest_hash !== currentHash) {
    return {
      ok: false,
      diagnostics: [
        diagnostic(
          'patch.stale-base',
          `the patch is based on ${document.base_manifest_hash}, but the manifest is now ${currentHash}`,
          '/base_manifest_hash',
        ),
      ],
    };
  }
  const manifest = cloneJson(current.manifest) as Record<string, unknown> & Partial<ManifestNode>;
  const definitions = current.definitions.map((d) => cloneJson(d));
  const find = (kind: string, name: string) => definitions.findIndex((d) => d.$kind === kind && d.name === name);
  const refs = (kind: DefKind) => (manifest[LIST_OF[kind]] ??= []) as { name: string; hash?: string }[];
  document.patches.forEach((patch, i) => {
    const at = pointer('/patches', i);
    switch (patch.op) {
      case 'add_def': {
        if (patch.node.$kind !== patch.kind)
          problems.push(diagnostic('patch.kind', `the node is a ${String(patch.node.$kind)}, not a ${patch.kind}`, pointer(at, 'node')));
        else if (find(patch.kind, String(patch.node.name)) >= 0)
          problems.push(
            diagnostic(
              'patch.exists',
              `a ${patch.kind} named "${String(patch.node.name)}" already exists; use replace_def`,
              pointer(at, 'node'),
            ),
          );
        else definitions.push(patch.node);
        break;
      }
      case 'replace_def':
      case 'remove_def': {
        const index = find(patch.kind, patch.name);
        if (index < 0) {
          problems.push(diagnostic('patch.missing', `no ${patch.kind} named "${patch.name}"`, pointer(at, 'name')));
          break;
        }
        const hash = hashNode(definitions[index] as CborValue);
        if (hash !== patch.pre_hash) {
          problems.push(
            diagnostic(
              'patch.pre-hash',
              `"${patch.name}" is now ${hash}, not ${patch.pre_hash}: it changed since the patch was written`,
              pointer(at, 'pre_hash'),
            ),
          );
          break;
        }
        const list = refs(patch.kind);
        if (patch.op === 'remove_def') {
          definitions.splice(index, 1);
          manifest[LIST_OF[patch.kind]] = list.filter((r) => r.name !== patch.name);
        } else {
          if (patch.new_node.$kind !== patch.kind || patch.new_node.name !== patch.name)
            problems.push(diagnostic('patch.kind', `the new node must be the ${patch.kind} "${patch.name}"`, pointer(at, 'new_node')));
          definitions[index] = patch.new_node;
          for (const ref of list) if (ref.name === patch.name) delete ref.hash;
        }
        break;
      }
      case 'set_manifest_refs':
        for (const r of patch.remove ?? []) manifest[LIST_OF[r.kind]] = refs(r.kind).filter((x) => x.name !== r.name);
        for (const r of patch.add ?? []) {
          const list = refs(r.kind);
          if (!list.some((x) => x.name === r.name)) list.push(r.hash === undefined ? { name: r.name } : { name: r.name, hash: r.hash });
        }
        break;
      case 'set_defaults': {
        const defaults = (manifest.defaults ??= {}) as Record<string, unknown>;
        if (patch.policy !== undefined) defaults.policy = patch.policy;
        if (patch.cap_grants !== undefined) defaults.cap_grants = patch.cap_grants;
        break;
      }
      default:
        problems.push(
          diagnostic('patch.op', `unknown patch operation ${JSON.stringify((patch as { op?: unknown }).op)}`, pointer(at, 'op')),
        );
    }
  });
  if (problems.length > 0) return { ok: false, diagnostics: problems };
  const validated = validateManifest(manifest, definitions);
  if (!validated.ok) return validated;
  return {
    ok: true,
    value: { plane: { manifest: validated.value.manifest as unknown as Record<string, unknown>, definitions }, validated: validated.value },
  };
}

/** The definitions a patch adds, replaces or removes, with a delta for replacements. */
export function diffPlanes(before: ControlPlane, after: ControlPlane): DefinitionDiff[] {
  const key = (d: Record<string, unknown>) => `${String(d.$kind)} ${String(d.name)}`;
  const old = new Map(before.definitions.map((d) => [key(d), d]));
  const now = new Map(after.definitions.map((d) => [key(d), d]));
  const out: DefinitionDiff[] = [];
  for (const [k, d] of now) {
    const previous = old.get(k);
    if (previous === undefined) out.push({ kind: String(d.$kind), name: String(d.name), change: 'added' });
    else {
      const delta = differ.diff(previous, d);
      if (delta !== undefined) out.push({ kind: String(d.$kind), name: String(d.name), change: 'replaced', delta });
    }
  }
  for (const [k, d] of old) if (!now.has(k)) out.push({ kind: String(d.$kind), name: String(d.name), change: 'removed' });
  return out.sort((a, b) => (`${a.kind} ${a.name}` < `${b.kind} ${b.name}` ? -1 : 1));
}

type ProposalState = 'proposed' | 'shadowed' | 'approved' | 'applied' | 'rejected';

/**
 * The governance loop: Proposed → ShadowReport → Approved → Applied, or Rejected with the validator's
 * diagnostics; each step journaled. Only an approved patch applies, and only onto the manifest it was
 * written against.
 */
export class Governance {
  private plane: ControlPlane;
  private planeHash: string;
  private readonly journal: Journal;
  private readonly proposals = new Map<Hash, { document: PatchDocument; state: ProposalState }>();

  constructor(plane: ControlPlane, planeHash: string, journal: Journal) {
    this.plane = plane;
    this.planeHash = planeHash;
    this.journal = journal;
  }

  get current(): { plane: ControlPlane; hash: string } {
    return { plane: this.plane, hash: this.planeHash };
  }

  propose(document: PatchDocument, author: string): Hash {
    const patchHash = hashNode(document as unknown as CborValue);
    this.proposals.set(patchHash, { document, state: 'proposed' });
    this.journal.append('Proposed', { patch_hash: patchHash, author, manifest_base: document.base_manifest_hash });
    return patchHash;
  }

  /** Applies the patch to a copy and reports what would change, or rejects it with the diagnostics. */
  shadow(patchHash: Hash): AirResult<{ effectsPredicted: string[]; diffs: DefinitionDiff[] }> {
    const proposal = this.expect(patchHash, ['proposed']);
    if (!proposal.ok) return proposal;
    const applied = applyPatch(this.plane, this.planeHash, proposal.value.document);
    if (!applied.ok) return this.reject(patchHash, applied.diagnostics);
    const diffs = diffPlanes(this.plane, applied.value.plane);
    const effects = new Set<string>();
    for (const plan of applied.value.validated.world.all('defplan'))
      for (const kind of plan.node.allowed_effects) if (EFFECT_CATALOG[kind]) effects.add(kind);
    const effectsPredicted = [...effects].sort();
    this.journal.append('ShadowReport', {
      patch_hash: patchHash,
      effects_predicted: effectsPredicted,
      diffs: diffs.map((d) => ({ kind: d.kind, name: d.name, change: d.change })),
    });
    proposal.value.state = 'shadowed';
    return { ok: true, value: { effectsPredicted, diffs } };
  }

  approve(patchHash: Hash, approver: string): AirResult<true> {
    const proposal = this.expect(patchHash, ['proposed', 'shadowed']);
    if (!proposal.ok) return proposal;
    proposal.value.state = 'approved';
    this.journal.append('Approved', { patch_hash: patchHash, approver });
    return { ok: true, value: true };
  }

  apply(patchHash: Hash): AirResult<{ manifestHash: string }> {
    const proposal = this.expect(patchHash, ['approved']);
    if (!proposal.ok) return proposal;
    const applied = applyPatch(this.plane, this.planeHash, proposal.value.document);
    if (!applied.ok) return this.reject(patchHash, applied.diagnostics);
    this.plane = applied.value.plane;
    this.planeHash = applied.value.validated.manifestHash;
    proposal.value.state = 'applied';
    this.journal.append('Applied', { patch_hash: patchHash, manifest_hash_new: this.planeHash });
    return { ok: true, value: { manifestHash: this.planeHash } };
  }

  private reject(patchHash: Hash, diagnostics: AirDiagnostic[]): { ok: false; diagnostics: AirDiagnostic[] } {
    this.proposals.get(patchHash)!.state = 'rejected';
    this.journal.append('Rejected', {
      patch_hash: patchHash,
      diagnostics: diagnostics.map((d) => ({ code: d.code, message: d.message, path: d.path })),
    });
    return { ok: false, diagnostics };
  }

  private expect(patchHash: Hash, states: ProposalState[]): AirResult<{ document: PatchDocument; state: ProposalState }> {
    const proposal = this.proposals.get(patchHash);
    if (proposal === undefined) return { ok: false, diagnostics: [diagnostic('governance.unknown', `no proposal ${patchHash}`, '')] };
    if (!states.includes(proposal.state))
      return {
        ok: false,
        diagnostics: [diagnostic('governance.state', `the proposal is ${proposal.state}; this step needs it ${states.join(' or ')}`, '')],
      };
    return { ok: true, value: proposal };
  }
}
