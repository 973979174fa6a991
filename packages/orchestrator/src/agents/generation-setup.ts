import { decidePolicy } from '@cairn/air';
import type { CompiledGovernance } from '@cairn/governance';
import { FS_GRANT } from '@cairn/governance';
import type { WindowOptions } from '@cairn/model';
import { contextWindow, parseModelName } from '@cairn/model';
import type { GenerationSetup } from '../programs/generate-program.js';
import type { AgentRecord } from './agent-store.js';
import type { ProjectCore } from './project-core.js';

/** How an agent's live model calls are sized: its window cap, seed and deadline (from its spawn, over the project's settings). */
export function windowOptionsOf(core: Pick<ProjectCore, 'modelSettings'>, record: AgentRecord): WindowOptions {
  const options = record.modelOptions ?? {};
  return {
    ...(options.contextTokens === undefined ? {} : { contextTokens: options.contextTokens }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...providerOf(core),
  };
}

/** What a live generation of this agent needs: the model's window, the answer length, recent edits, what it may read. */
export function generationSetup(
  core: Pick<ProjectCore, 'modelClient' | 'recentEdits'>,
  record: AgentRecord,
  mayRead: (path: string) => boolean,
): GenerationSetup {
  const options = record.modelOptions ?? {};
  return {
    async window(model) {
      const context = await core.modelClient().contextLength(model);
      if (!context.ok) return context;
      return { ok: true, tokens: contextWindow(context.tokens, options.contextTokens, parseModelName(model).provider) };
    },
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    recent: () => core.recentEdits(),
    mayRead,
  };
}

/** A check that the agent's policy lets it read a path (what a repo map may search and outline). */
export function readableBy(governance: CompiledGovernance, agentId: string): (path: string) => boolean {
  return (path) =>
    decidePolicy(governance.policy, { kind: 'fs.read', capName: FS_GRANT, params: { path }, origin: { kind: 'agent', name: agentId } })
      .decision === 'allow';
}

function providerOf(core: Pick<ProjectCore, 'modelSettings'>): Pick<WindowOptions, 'provider'> {
  try {
    const provider = core.modelSettings().provider;
    return provider === undefined ? {} : { provider };
  } catch {
    return {};
  }
}
