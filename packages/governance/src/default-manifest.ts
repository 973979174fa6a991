import type { CapGrantJson, DefPolicyNode, ManifestNode, PolicyRule } from '@cairn/air';
import type { AgentBudgets } from '@cairn/api';
import type { CheckSpec } from '@cairn/checks';

/**
 * Where secrets sit, never read or written by agents: `.env*`, and what a home folder (or a project that copied
 * some of it) keeps credentials in — SSH and GnuPG keys, cloud and cluster credentials, the GitHub CLI's
 * token, registry and package-index tokens, netrc, private key files by their usual names. A name without a
 * `/` (a trailing one aside) matches at any depth, and so does a nested path led by `**`.
 */
export const SECRET_PATTERNS: readonly string[] = [
  '.env*',
  '.ssh/',
  '.gnupg/',
  '.aws/',
  '.azure/',
  '.kube/',
  '.password-store/',
  '**/.config/gh/',
  '**/.config/gcloud/',
  '**/.docker/config.json',
  '**/.cargo/credentials*',
  '**/.gem/credentials',
  '**/.terraform.d/credentials*',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.pgpass',
  '.vault-token',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
];

/** Paths no agent may write by default: version control, Cairn's own files, secrets, CI configuration. */
export const PROTECTED_WRITE_PATTERNS: readonly string[] = [
  '.git/',
  '.agentfs/',
  '.cairn/',
  ...SECRET_PATTERNS,
  '.github/workflows/',
  '.gitlab-ci.yml',
  '.circleci/',
  '.travis.yml',
  '.buildkite/',
  'azure-pipelines.yml',
  'bitbucket-pipelines.yml',
  'Jenkinsfile',
];

/** Paths no agent may read by default: Cairn's own files and secrets. */
export const PROTECTED_READ_PATTERNS: readonly string[] = ['.git/', '.agentfs/', '.cairn/', ...SECRET_PATTERNS];

/** The grant names every agent holds. */
export const FS_GRANT = 'fs';
export const LLM_GRANT = 'llm';
export const CHECK_GRANT = 'check';
export const DEFAULT_POLICY = 'cairn/default@1';

/** The largest single write an agent may make (bytes). */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;
/** The largest answer an agent may ask a model for (tokens). */
export const MAX_TOKENS_PER_CALL = 8192;
/** The wall time an agent's checks may take in all (ms). */
export const CHECK_BUDGET_MS = 30 * 60_000;

/** What one agent's governance is made of, before validation. */
export interface GovernanceSource {
  manifest: ManifestNode;
  definitions: DefPolicyNode[];
  grants: CapGrantJson[];
  policy: DefPolicyNode;
  /** The project's checks when the agent started, kept with its governance so a replay asks for the same runs. */
  checks?: CheckSpec[];
}

/** Who the agent is: an author of changes, or a reviewer that may only read. */
export type AgentRole = 'author' | 'reviewer';

/**
 * Cairn's default governance as an AIR manifest: agents may read the whole project but secrets and Cairn's
 * files, write it all but the protected paths (or only under `scope`), and ask the model, within budgets.
 */
export function defaultGovernance(options: {
  role: AgentRole;
  budgets: AgentBudgets;
  scope?: readonly string[];
  checks?: readonly CheckSpec[];
}): GovernanceSource {
  const fsParams: Record<string, unknown> = {
    read_prefixes: [''],
    read_exclude: [...PROTECTED_READ_PATTERNS],
    write_prefixes:
      options.role === 'reviewer' ? [] : options.scope === undefined || options.scope.length === 0 ? [''] : [...options.scope],
    write_exclude: [...PROTECTED_WRITE_PATTERNS],
    max_write_bytes: MAX_WRITE_BYTES,
  };
  const grants: CapGrantJson[] = [
    { name: FS_GRANT, cap: 'sys/fs@1', params: fsParams, budget: { bytes: options.budgets.bytes } },
    {
      name: LLM_GRANT,
      cap: 'sys/llm.basic@1',
      params: { providers: ['ollama', 'openai'], max_tokens_max: MAX_TOKENS_PER_CALL },
      budget: { tokens: options.budgets.tokens },
    },
  ];
  const rules: PolicyRule[] = [
    { when: { effect_kind: 'fs.*', origin_kind: 'agent' }, decision: 'allow' },
    { when: { effect_kind: 'llm.generate', origin_kind: 'agent' }, decision: 'allow' },
  ];
  const checks = options.checks ?? [];
  if (checks.length > 0) {
    grants.push({ name: CHECK_GRANT, cap: 'sys/check@1', params: { checks: checks.map((c) => c.name) }, budget: { ms: CHECK_BUDGET_MS } });
    rules.push({ when: { effect_kind: 'check.run', origin_kind: 'agent' }, decision: 'allow' });
  }
  const policy: DefPolicyNode = { $kind: 'defpolicy', name: DEFAULT_POLICY, rules };
  const source: GovernanceSource = { manifest: manifestOf(policy, grants), definitions: [policy], grants, policy };
  if (checks.length > 0) source.checks = checks.map((c) => ({ ...c, command: [...c.command] }));
  return source;
}

/** A manifest naming one policy and a set of grants, nothing else. */
export function manifestOf(policy: DefPolicyNode, grants: CapGrantJson[]): ManifestNode {
  return {
    $kind: 'manifest',
    schemas: [],
    modules: [],
    plans: [],
    caps: [],
    policies: [{ name: policy.name }],
    defaults: { policy: policy.name, cap_grants: grants },
  };
}
