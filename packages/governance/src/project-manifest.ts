import { existsSync } from 'node:fs';
import type { CapGrantJson, PolicyRule } from '@cairn/air';
import { loadManifestDirectory } from '@cairn/air/node';
import { CHECK_GRANT, FS_GRANT, type GovernanceSource, LLM_GRANT, manifestOf } from './default-manifest.js';

/** A problem with the project's manifest, placed in its file. */
export interface ManifestProblem {
  file: string;
  path: string;
  message: string;
  code: string;
}

/** What `.cairn/manifest.air.json` adds to the defaults: deny rules first, narrower grants. */
export interface ProjectGovernance {
  denyRules: PolicyRule[];
  grants: CapGrantJson[];
  /** Things the manifest asks for that cannot widen the defaults, and so are ignored. */
  warnings: string[];
}

export type ProjectManifestResult = { ok: true; governance: ProjectGovernance | undefined } | { ok: false; problems: ManifestProblem[] };

/** Loads and validates the project's manifest folder (`.cairn/`); no manifest file means the defaults as they are. */
export function loadProjectGovernance(settingsDir: string, manifestPath: string): ProjectManifestResult {
  if (!existsSync(manifestPath)) return { ok: true, governance: undefined };
  const loaded = loadManifestDirectory(settingsDir);
  if (!loaded.ok) {
    return {
      ok: false,
      problems: loaded.diagnostics.map((d) => {
        const file = (d as { file?: string }).file ?? 'manifest.air.json';
        return { file, path: d.path, message: d.message, code: d.code };
      }),
    };
  }
  const manifest = loaded.value.manifest;
  const warnings: string[] = [];
  const denyRules: PolicyRule[] = [];
  const policyName = manifest.defaults?.policy;
  if (policyName !== undefined) {
    const policy = loaded.value.world.get('defpolicy', policyName)?.node as { rules?: PolicyRule[] } | undefined;
    (policy?.rules ?? []).forEach((rule, index) => {
      if (rule.decision === 'deny') denyRules.push(rule);
      else warnings.push(`policy ${policyName} rule ${index} allows; a project manifest can only deny more (ignored)`);
    });
  }
  const grants: CapGrantJson[] = [];
  for (const grant of manifest.defaults?.cap_grants ?? []) {
    if (grant.name === FS_GRANT || grant.name === LLM_GRANT || grant.name === CHECK_GRANT) grants.push(grant);
    else warnings.push(`grant "${grant.name}" is not one an agent uses (${FS_GRANT}, ${LLM_GRANT}, ${CHECK_GRANT}); ignored`);
  }
  return { ok: true, governance: { denyRules, grants, warnings } };
}

/** The defaults narrowed by a project's governance: its deny rules go first, its grants can only take away. */
export function tightenGovernance(source: GovernanceSource, project: ProjectGovernance | undefined): GovernanceSource {
  if (project === undefined) return source;
  const grants = source.grants.map((grant) => {
    const narrower = project.grants.find((g) => g.name === grant.name);
    return narrower === undefined ? grant : narrowGrant(grant, narrower);
  });
  const policy = { ...source.policy, rules: [...project.denyRules, ...source.policy.rules] };
  const tightened: GovernanceSource = { manifest: manifestOf(policy, grants), definitions: [policy], grants, policy };
  if (source.checks !== undefined) tightened.checks = source.checks;
  return tightened;
}

type Params = Record<string, unknown>;

function narrowGrant(base: CapGrantJson, narrower: CapGrantJson): CapGrantJson {
  const a = base.params as Params;
  const b = (narrower.params ?? {}) as Params;
  const params: Params = { ...a };
  for (const key of ['read_prefixes', 'write_prefixes'] as const) {
    if (Array.isArray(b[key])) params[key] = intersectPrefixes(strings(a[key]), strings(b[key]));
  }
  for (const key of ['read_exclude', 'write_exclude'] as const) {
    if (Array.isArray(b[key])) params[key] = [...new Set([...strings(a[key]), ...strings(b[key])])];
  }
  for (const key of ['providers', 'models', 'tools_allow', 'checks'] as const) {
    if (Array.isArray(b[key]))
      params[key] = Array.isArray(a[key]) ? strings(b[key]).filter((v) => strings(a[key]).includes(v)) : strings(b[key]);
  }
  for (const key of ['max_write_bytes', 'max_tokens_max'] as const) {
    if (typeof b[key] === 'number') params[key] = typeof a[key] === 'number' ? Math.min(a[key] as number, b[key] as number) : b[key];
  }
  const budget = { ...(base.budget ?? {}) };
  for (const dim of ['tokens', 'bytes', 'cents', 'ms'] as const) {
    const limit = narrower.budget?.[dim];
    if (limit !== undefined) budget[dim] = budget[dim] === undefined ? limit : Math.min(budget[dim]!, limit);
  }
  return { ...base, params, budget };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The prefixes that lie within both lists (`''` is the whole project). */
function intersectPrefixes(a: readonly string[], b: readonly string[]): string[] {
  const norm = (p: string) => p.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  const within = (inner: string, outer: string) => outer === '' || inner === outer || inner.startsWith(outer + '/');
  const out = new Set<string>();
  for (const x of a.map(norm))
    for (const y of b.map(norm)) {
      if (within(y, x)) out.add(y);
      else if (within(x, y)) out.add(x);
    }
  return [...out].sort();
}
