import type { AgentBudgets } from '@cairn/api';
import { CairnError } from '@cairn/api';
import { loadCheckSettings } from '@cairn/checks';
import type { ProjectLayout } from '@cairn/workspace';
import { type CompiledGovernance, compileGovernance, compileGovernanceJson } from './compile.js';
import { type AgentRole, defaultGovernance, type GovernanceSource } from './default-manifest.js';
import { loadProjectGovernance, tightenGovernance } from './project-manifest.js';

/** What an agent's governance depends on: its budgets, its write scope, and whether it reviews. */
export interface GovernedAgent {
  budgets: AgentBudgets;
  scope?: readonly string[];
  role?: 'author' | 'reviewer';
  /** The governance (its JSON text) the agent was given to start under: a coordinator's job fixes it. */
  governance?: string;
}

/**
 * The governance an agent gets when it starts: the defaults for its role and budgets (with a grant of the
 * checks `.cairn/config.json` declares), tightened by the
 * project's `.cairn/manifest.air.json`. A manifest that does not validate is refused with where to look.
 */
export function governanceFor(
  layout: Pick<ProjectLayout, 'settingsDir' | 'manifestPath' | 'configPath'>,
  agent: GovernedAgent,
): GovernanceSource {
  const loaded = loadProjectGovernance(layout.settingsDir, layout.manifestPath);
  if (!loaded.ok) {
    const detail = loaded.problems.map((p) => `${p.file}${p.path ? ` ${p.path}` : ''}: ${p.message}`).join('; ');
    throw new CairnError('CAIRN_MANIFEST', `.cairn/manifest.air.json is not valid: ${detail}`, {
      hint: 'see every problem with `cairn air check`',
    });
  }
  const role: AgentRole = agent.role === 'reviewer' ? 'reviewer' : 'author';
  const checks = loadCheckSettings(layout.configPath);
  const base = defaultGovernance({ role, budgets: agent.budgets, checks, ...(agent.scope === undefined ? {} : { scope: agent.scope }) });
  return tightenGovernance(base, loaded.governance);
}

/**
 * The one source of the grants an agent starts under, wherever it runs: the governance it was given (the text a
 * coordinator computed with this same function, signed into the job's token), else the project's for it now
 * (`governanceFor`). A coordinator signs the token with it, a worker and the local pool run the agent under it,
 * and verification compares the journal's with it.
 */
export function startingGovernance(
  layout: Pick<ProjectLayout, 'settingsDir' | 'manifestPath' | 'configPath'>,
  agent: GovernedAgent,
): CompiledGovernance {
  return agent.governance === undefined ? compileGovernance(governanceFor(layout, agent)) : compileGovernanceJson(agent.governance);
}
