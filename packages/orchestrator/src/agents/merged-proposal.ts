import type { Overlay } from '@cairn/agentfs';
import type { ProposedFile } from '@cairn/checks';

/**
 * The proposal as accepting it now would leave the project, for its checks: each changed file merged three-way
 * onto what stable.db holds now (the working tree after the accepts before it), a deletion as `null`. A path
 * that does not merge keeps what the project has (a whole accept stops at the conflict; `--partial` leaves it
 * so). Decided by a dry run of the accept: nothing is written.
 */
export function mergedProposalOf(overlay: Overlay): ProposedFile[] {
  const result = overlay.accept({ dryRun: true });
  const out: ProposedFile[] = [];
  for (const applied of result.applied) {
    if (applied.how === 'already') continue;
    if (applied.after.kind === 'absent') out.push({ path: applied.path, content: null });
    else if (applied.after.kind === 'file') out.push({ path: applied.path, content: applied.after.content });
  }
  return out;
}
