/** How a path changed in an agent's proposal. */
export type ChangeStatus = 'added' | 'modified' | 'deleted';

/** One changed path of a proposal. */
export interface ChangeInfo {
  path: string;
  status: ChangeStatus;
  /** `file`, `dir` or `symlink` (the kind before the change, for deletions). */
  kind: 'file' | 'dir' | 'symlink';
}

/** One file of a proposal: its text when the agent first changed it (`base`) and now (`proposed`); null where absent. */
export interface FileProposal {
  path: string;
  status: ChangeStatus;
  base: string | null;
  proposed: string | null;
  /** True where either side is not UTF-8 text (both texts are then null). */
  binary: boolean;
}
