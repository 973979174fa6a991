import { type CapGrantJson, type DefPolicyNode, validateManifest, type World } from '@cairn/air';
import { CairnError } from '@cairn/api';
import type { CheckSpec } from '@cairn/checks';
import type { GovernanceSource } from './default-manifest.js';

/** A validated governance: the world the kernel checks against, its grants and policy. */
export interface CompiledGovernance {
  world: World;
  manifestHash: string;
  grants: readonly CapGrantJson[];
  policy: DefPolicyNode;
  /** The checks the agent may run, as declared when it started. */
  checks: readonly CheckSpec[];
  /** The source as JSON text, kept with the agent so a replay runs under the same rules. */
  json: string;
}

const cache = new Map<string, CompiledGovernance>();

/** Validates a governance source (cached by its JSON text: validating a manifest is not free). */
export function compileGovernance(source: GovernanceSource): CompiledGovernance {
  const json = JSON.stringify(source);
  const hit = cache.get(json);
  if (hit !== undefined) return hit;
  const result = validateManifest(source.manifest, source.definitions);
  if (!result.ok) {
    const detail = result.diagnostics.map((d) => `${d.path}: ${d.message}`).join('; ');
    throw new CairnError('CAIRN_MANIFEST', `the effective manifest is not valid: ${detail}`, {
      hint: 'check .cairn/manifest.air.json with `cairn air check`',
    });
  }
  const compiled: CompiledGovernance = {
    world: result.value.world,
    manifestHash: result.value.manifestHash,
    grants: source.grants,
    policy: source.policy,
    checks: source.checks ?? [],
    json,
  };
  if (cache.size > 64) cache.clear();
  cache.set(json, compiled);
  return compiled;
}

/** Compiles a governance kept as JSON text (a replay's). */
export function compileGovernanceJson(json: string): CompiledGovernance {
  return compileGovernance(JSON.parse(json) as GovernanceSource);
}
