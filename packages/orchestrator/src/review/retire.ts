import { existsSync } from 'node:fs';
import { AgentFS, AgentFSError, Ledger } from '@cairn/agentfs';
import type { AgentInfo, CollectOutcome } from '@cairn/api';
import { CairnError } from '@cairn/api';
import { damagedProposal } from '@cairn/workspace';
import { toAgentInfo } from '../agents/agent-info.js';
import type { ProjectCore } from '../agents/project-core.js';
import { withAgentOperation } from './agent-operation.js';

/** The reason recorded when none is given. */
const DEFAULT_REASON = 'rejected';

/**
 * Rejects an agent: its overlay goes to the ledger (moved aside in `.agentfs/trash/`, restorable until
 * collected) and the agent becomes `rejected` with the reason. A queued agent that never ran has no
 * overlay; it is simply taken out of the queue. Alone with the agent's other state changes (`withAgentOperation`):
 * a reject that comes after an accept that wrote is refused, naming `accepted`.
 */
export function rejectAgent(
  core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable' | 'store'>,
  agentId: string,
  reason: string | undefined,
): AgentInfo {
  return withAgentOperation(core, () => rejectLocked(core, agentId, reason));
}

function rejectLocked(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'store'>, agentId: string, reason: string | undefined): AgentInfo {
  const record = core.store.require(agentId);
  const text = (reason ?? '').trim() || DEFAULT_REASON;
  if (record.state !== 'queued' && record.state !== 'reviewing' && record.state !== 'failed') {
    const hint =
      record.state === 'accepted'
        ? `undo the accept first with \`cairn undo ${agentId}\``
        : record.state === 'running'
          ? 'wait for it to submit or fail'
          : undefined;
    throw new CairnError(
      'CAIRN_INVALID_STATE',
      `agent ${agentId} is ${record.state}; only a queued, reviewing or failed agent can be rejected`,
      hint === undefined ? {} : { hint },
    );
  }
  const overlayPath = core.layout.overlayPath(agentId);
  let ledgerId: number | undefined;
  if (existsSync(overlayPath)) {
    const ledger = Ledger.open(core.layout.binPath);
    try {
      ledgerId = ledger.retire(agentId, overlayPath, text).id;
    } finally {
      ledger.close();
    }
  }
  const rejected = core.lifecycle.move(
    agentId,
    [record.state],
    'rejected',
    { reason: text, rejectedFrom: record.state, ledgerId, owner: undefined, stopRequested: undefined },
    'reject',
    (_, time) => ({ type: 'agent.rejected', time, agentId, reason: text }),
  );
  return toAgentInfo(rejected);
}

/**
 * Brings a rejected agent back to where it was (usually `reviewing`), its overlay moved back from the ledger.
 * Everything that can stop it is checked first (collected, missing from the trash, its place taken, a
 * damaged database), so a restore that fails changes nothing. Alone with the agent's other state changes.
 */
export function restoreAgent(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'stable' | 'store'>, agentId: string): AgentInfo {
  return withAgentOperation(core, () => restoreLocked(core, agentId));
}

function restoreLocked(core: Pick<ProjectCore, 'layout' | 'lifecycle' | 'store'>, agentId: string): AgentInfo {
  const record = core.store.require(agentId);
  if (record.state !== 'rejected')
    throw new CairnError('CAIRN_INVALID_STATE', `agent ${agentId} is ${record.state}; only a rejected agent can be restored`);
  if (record.ledgerId !== undefined) {
    const ledger = Ledger.open(core.layout.binPath);
    try {
      const entry = ledger.get(record.ledgerId);
      if (entry?.collectedAt !== null && entry?.collectedAt !== undefined) {
        throw new CairnError(
          'CAIRN_INVALID_STATE',
          `agent ${agentId}'s overlay was collected on ${new Date(entry.collectedAt).toISOString()}; it cannot be restored`,
        );
      }
      if (entry !== undefined && entry.restoredAt === null) {
        checkRestorable(agentId, entry.retiredPath, entry.originalPath);
        ledger.restore(record.ledgerId);
      }
    } finally {
      ledger.close();
    }
  }
  const back = record.rejectedFrom ?? 'reviewing';
  const restored = core.lifecycle.move(
    agentId,
    ['rejected'],
    back,
    { reason: back === 'failed' ? record.failure?.message : undefined, ledgerId: undefined, rejectedFrom: undefined },
    'restore',
    (_, time) => ({ type: 'agent.restored', time, agentId }),
  );
  return toAgentInfo(restored);
}

/** Refuses, before anything moves, a retired overlay that is gone, whose place is taken, or that is damaged. */
function checkRestorable(agentId: string, retiredPath: string, originalPath: string): void {
  if (!existsSync(retiredPath))
    throw new CairnError(
      'CAIRN_INVALID_STATE',
      `agent ${agentId}'s overlay is no longer in the trash (${retiredPath}); it cannot be restored`,
    );
  if (existsSync(originalPath))
    throw new CairnError(
      'CAIRN_INVALID_STATE',
      `a database is already at ${originalPath}, where agent ${agentId}'s overlay would go back`,
      {
        hint: 'move that file aside, then restore again',
      },
    );
  let store: AgentFS | undefined;
  try {
    store = AgentFS.open(retiredPath, { durability: 'normal' });
    const check = store.db.pragma('quick_check', { simple: true }) as string;
    if (check !== 'ok') throw new AgentFSError('ECORRUPT', 'open', retiredPath, `the database file is damaged (${check})`);
  } catch (error) {
    const damaged = damagedProposal(agentId, error);
    if (damaged === undefined) throw error;
    throw new CairnError('CAIRN_CORRUPT', `${damaged.message}; it stays rejected`, {
      hint: `its database is kept as it is in ${retiredPath} until \`cairn gc\` collects it`,
      cause: error,
    });
  } finally {
    store?.close();
  }
}

/** Deletes for good the overlays of agents rejected at least `olderThanMs` ago; nothing else is touched. */
export function collectRejected(core: Pick<ProjectCore, 'clock' | 'layout'>, olderThanMs: number): CollectOutcome {
  if (!Number.isFinite(olderThanMs) || olderThanMs < 0)
    throw new CairnError('CAIRN_INVALID_ARGUMENT', 'the age must be a non-negative number of milliseconds');
  const ledger = Ledger.open(core.layout.binPath);
  try {
    const collected = ledger.collect(core.clock() - olderThanMs);
    return { collected: collected.map((entry) => ({ agentId: entry.agentId, retiredAt: new Date(entry.retiredAt).toISOString() })) };
  } finally {
    ledger.close();
  }
}
