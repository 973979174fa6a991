import type { ChangeInfo } from '@cairn/api';
import type { AgentWorkspace } from '@cairn/workspace';
import { changeInfoOf } from '@cairn/workspace';
import type { AgentPatch, AgentRecord } from './agent-store.js';
import type { ProjectCore } from './project-core.js';

/** What a finished run adds to its agent as it becomes a proposal. */
export interface SubmittedRun {
  /** The program's own summary (`submit_result`); absent or empty, one is made from the changes. */
  summary?: string | undefined;
  /** The overlay's changes, when the caller has read them already. */
  changes?: ChangeInfo[];
  /** The rest of the record's new fields (spending, runs, journal head, and for a remote run its worker's key). */
  patch: AgentPatch;
}

/**
 * The one road to `reviewing`, for a run here and for a run on a worker once its result is verified: the agent's
 * changes, a summary, and a preview of the diff read from the overlay still open in `workspace`.
 */
export function submitProposal(
  core: Pick<ProjectCore, 'lifecycle'>,
  record: Pick<AgentRecord, 'id'>,
  workspace: AgentWorkspace,
  run: SubmittedRun,
): void {
  const changes = run.changes ?? workspace.overlay.changes().map(changeInfoOf);
  const summary =
    run.summary === undefined || run.summary === ''
      ? `changed ${changes.length} file${changes.length === 1 ? '' : 's'} (the program did not call submit_result)`
      : run.summary;
  const diff = workspace.overlay.diff();
  core.lifecycle.move(
    record.id,
    ['running'],
    'reviewing',
    { ...run.patch, owner: undefined, changes, summary, failure: undefined, reason: undefined },
    'submit',
    (_, time) => ({ type: 'agent.submitted', time, agentId: record.id, summary, changes }),
    { diff },
  );
}
