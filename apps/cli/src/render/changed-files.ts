import type { ChangeInfo } from '@cairn/daemon/client';

/**
 * How many files (and symbolic links) a proposal changes: a folder it creates or removes is listed among its
 * changes but is not a file, so `3 files` means what `git diff --stat` would say.
 */
export function changedFileCount(changes: readonly ChangeInfo[]): number {
  return changes.reduce((count, change) => (change.kind === 'dir' ? count : count + 1), 0);
}

/** `1 file`, `3 files`: the changed files of a proposal in words. */
export function changedFilesInWords(changes: readonly ChangeInfo[]): string {
  const count = changedFileCount(changes);
  return `${count} file${count === 1 ? '' : 's'}`;
}
