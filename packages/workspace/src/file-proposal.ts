import { mergeText, type Overlay } from '@cairn/agentfs';
import type { FileProposal } from '@cairn/api';
import { CairnError } from '@cairn/api';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What a proposal does to one text, as an editor shows it: the text after the change, or why it cannot say. */
export type ProposalOnText = { ok: true; text: string | null } | { ok: false; reason: 'conflict' | 'binary'; message: string };

/** The merge base and proposed text of `path` in an overlay; refuses a path the agent did not change. */
export function readFileProposal(overlay: Overlay, path: string): FileProposal {
  const change = overlay.changes().find((c) => c.path === path);
  if (change === undefined) throw new CairnError('CAIRN_INVALID_ARGUMENT', `the proposal does not change ${path}`);
  if (change.kind !== 'file') throw new CairnError('CAIRN_INVALID_ARGUMENT', `${path} is not a file in the proposal`);
  const base = change.before.kind === 'file' ? decode(change.before.content) : null;
  const proposed = change.after.kind === 'file' ? decode(change.after.content) : null;
  const binary = base === undefined || proposed === undefined;
  return binary
    ? { path, status: change.status, base: null, proposed: null, binary }
    : { path, status: change.status, base: base ?? null, proposed: proposed ?? null, binary };
}

/**
 * The proposal carried onto `current` (an editor's buffer, saved or not): a three-way merge of the agent's
 * change (base → proposed) into it, exactly what accepting would write if the file held `current`.
 */
export function proposalOnText(proposal: FileProposal, current: string): ProposalOnText {
  if (proposal.binary) return { ok: false, reason: 'binary', message: `${proposal.path} is binary; see it with cairn diff` };
  if (proposal.proposed === null) {
    return proposal.base === current
      ? { ok: true, text: null }
      : { ok: false, reason: 'conflict', message: `the agent deletes ${proposal.path}, which changed since it read it` };
  }
  if (proposal.base === null) {
    if (current === '' || current === proposal.proposed) return { ok: true, text: proposal.proposed };
    return { ok: false, reason: 'conflict', message: `the agent creates ${proposal.path}, which now exists with other content` };
  }
  const merged = mergeText(proposal.base, current, proposal.proposed);
  if (merged.clean) return { ok: true, text: merged.text };
  const lines = merged.conflicts.map((c) => c.ours.start).join(', ');
  return { ok: false, reason: 'conflict', message: `the proposal overlaps your edits (line ${lines}); see it with cairn diff` };
}

function decode(content: Uint8Array): string | undefined {
  if (content.subarray(0, 8000).includes(0)) return undefined;
  try {
    return utf8.decode(content);
  } catch {
    return undefined;
  }
}
