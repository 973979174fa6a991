import { hostAllowed, parseHttpUrl } from './grant-constraints.js';
import type { DefPolicyNode } from './nodes.js';

/** Where an effect comes from: a plan instance, a reducer invocation, or an agent's program (named by its agent id). */
export interface EffectOrigin {
  kind: 'plan' | 'reducer' | 'agent';
  name: string;
}

/** The outcome of a policy: the first matching rule's decision, or deny when none matches. */
export interface PolicyDecision {
  decision: 'allow' | 'deny';
  /** Index of the matching rule; -1 for the default deny. */
  ruleIndex: number;
  policyName: string;
}

/** What a rule can look at. */
export interface PolicySubject {
  kind: string;
  capName: string;
  params: Readonly<Record<string, unknown>>;
  origin: EffectOrigin;
}

/** Evaluates ordered rules: first match wins; no match is deny. No policy at all is deny too. */
export function decidePolicy(policy: DefPolicyNode | undefined, subject: PolicySubject): PolicyDecision {
  if (policy === undefined) return { decision: 'deny', ruleIndex: -1, policyName: '' };
  const parsed = subject.params.url === undefined ? undefined : parseHttpUrl(subject.params.url);
  const url = parsed?.ok === true ? parsed : undefined;
  for (let i = 0; i < policy.rules.length; i++) {
    const when = policy.rules[i]!.when;
    if (when.effect_kind !== undefined && !kindMatches(when.effect_kind, subject.kind)) continue;
    if (when.cap_name !== undefined && when.cap_name !== subject.capName) continue;
    if (when.host !== undefined && (url === undefined || (!hostAllowed(url.host, [when.host]) && !url.host.endsWith('.' + when.host))))
      continue;
    if (when.method !== undefined && String(subject.params.method ?? '').toUpperCase() !== when.method.toUpperCase()) continue;
    if (when.origin_kind !== undefined && when.origin_kind !== subject.origin.kind) continue;
    if (when.origin_name !== undefined && when.origin_name !== subject.origin.name) continue;
    return { decision: policy.rules[i]!.decision, ruleIndex: i, policyName: policy.name };
  }
  return { decision: 'deny', ruleIndex: -1, policyName: policy.name };
}

function kindMatches(pattern: string, kind: string): boolean {
  return pattern.endsWith('.*') ? kind.startsWith(pattern.slice(0, -1)) : pattern === kind;
}
