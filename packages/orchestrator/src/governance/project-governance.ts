import { CairnError } from '../api/errors.js';
import type { ProjectLayout } from '../workspace/layout.js';
import { type AgentRole, defaultGovernance, type GovernanceSource } from './default-manifest.js';
import { loadProjectGovernance, tightenGovernance } from './project-manifest.js';
import type { AgentBudgets } from '../api/types.js';
import { loadCheckSettings } from '../checks/check-settings.js';

/** What an agent's governance depends on: its budgets, its write scope, and whether it reviews. */
export interface GovernedAgent {
  budgets: AgentBudgets;
  scope?: readonly string[];
  role?: 'author' | 'reviewer';
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
