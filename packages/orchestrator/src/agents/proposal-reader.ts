import { existsSync } from 'node:fs';
import type { Overlay } from '@cairn/agentfs';
import { SqliteJournalStore, stateOf } from '@cairn/agentfs';
import type { ChangeInfo, FileProposal, JournalView } from '@cairn/api';
import { CairnError, projectPath } from '@cairn/api';
import { changeInfoOf, journalRows, readFileProposal, verifyJournal, withAgentOverlay } from '@cairn/workspace';
import type { ProposalForReview } from '../run/run-context.js';
import { withModelRows } from '../tools/model-rows.js';
import { interruptedJournal } from './interrupted.js';
import type { AgentFiles } from './project-core.js';

/** Files of a reviewer's view of a proposal larger than this are shown without their text. */
const MAX_REVIEW_TEXT = 256 * 1024;

/** Runs `fn` on an agent's overlay; an agent without one is refused with why (rejected, not started, missing). */
export function withOverlayOf<T>(core: AgentFiles, id: string, fn: (overlay: Overlay) => T): T {
  const record = core.store.require(id);
  const path = core.layout.overlayPath(id);
  if (!existsSync(path)) {
    const why =
      record.state === 'rejected'
        ? `it was rejected; bring it back with \`cairn restore ${id}\``
        : record.state === 'queued'
          ? 'it has not started yet'
          : 'its database is missing';
    throw new CairnError('CAIRN_INVALID_STATE', `agent ${id} has no overlay to read: ${why}`);
  }
  return withAgentOverlay(path, core.stable, id, fn);
}

/** What an agent's proposal changes. */
export function changesOf(core: AgentFiles, id: string): ChangeInfo[] {
  return withOverlayOf(core, id, (overlay) => overlay.changes().map(changeInfoOf));
}

/** The git-style diff of the proposal, or of the given paths. */
export function diffOf(core: AgentFiles, id: string, paths?: readonly string[]): string {
  // no paths, or an empty list, is the whole proposal (a query string cannot tell the two apart)
  const wanted = paths === undefined || paths.length === 0 ? undefined : paths.map(projectPath);
  return withOverlayOf(core, id, (overlay) => overlay.diff(wanted));
}

/** The proposed text of one file, or null where the agent deleted it (or never had it). */
export function proposedText(core: AgentFiles, id: string, path: string): string | null {
  const at = '/' + projectPath(path);
  return withOverlayOf(core, id, (overlay) => {
    const state = stateOf(overlay.fs, at);
    if (state.kind === 'absent') return null;
    if (state.kind !== 'file')
      throw new CairnError('CAIRN_INVALID_ARGUMENT', `${path} is a ${state.kind === 'dir' ? 'directory' : 'symbolic link'}, not a file`);
    return state.content.toString('utf8');
  });
}

/** One changed file's merge base and proposed text. */
export function fileProposalOf(core: AgentFiles, id: string, path: string): FileProposal {
  const relative = projectPath(path);
  return withOverlayOf(core, id, (overlay) => readFileProposal(overlay, relative));
}

/** The agent's journal as rows, with its chain verified (and the run a crash cut off, when there was one). */
export function journalOf(core: AgentFiles, id: string): JournalView {
  const record = core.store.require(id);
  return withOverlayOf(core, id, (overlay) => {
    const entries = [...new SqliteJournalStore(overlay.upper.db).entries()];
    const broken = verifyJournal(entries, record.journalHead);
    const view: JournalView = {
      agentId: id,
      rows: withModelRows(entries, journalRows(entries)),
      entries: entries.length,
      verified: broken === undefined,
    };
    if (broken !== undefined) view.broken = broken;
    const earlier = interruptedJournal(overlay.upper.db);
    if (earlier.length > 0)
      view.interrupted = {
        rows: withModelRows(earlier, journalRows(earlier)),
        entries: earlier.length,
        verified: verifyJournal(earlier, undefined) === undefined,
      };
    return view;
  });
}

/** The proposal a reviewer reads with `get_proposal()`: task, summary, changes, diff and texts (large ones left out). */
export function proposalForReview(core: AgentFiles, agentId: string): ProposalForReview {
  const record = core.store.require(agentId);
  return withOverlayOf(core, agentId, (overlay) => {
    const changes = overlay.changes();
    const cap = (text: string | null) => (text !== null && text.length > MAX_REVIEW_TEXT ? null : text);
    const files = changes
      .filter((c) => c.kind === 'file')
      .map((c) => {
        const file = readFileProposal(overlay, c.path);
        return { path: c.path, status: c.status, before: cap(file.base), after: cap(file.proposed) };
      });
    return {
      agent: agentId,
      task: record.task,
      summary: record.summary ?? '',
      changes: changes.map((c) => ({ path: c.path, status: c.status })),
      diff: overlay.diff(),
      files,
    };
  });
}
