import type { AgentFS } from '@cairn/agentfs';
import { IgnoreRules, importPaths } from '@cairn/agentfs';
import { ancestorsOf } from './ancestors.js';

/**
 * Runs `fn` in one immediate transaction of stable.db: the write lock is taken before anything is read, so
 * nothing another process writes can slip in between what `fn` reads and what it writes, and everything commits
 * at once (one commit, one sync of the database). On failure nothing of it stays, cached lookups included.
 */
export function inStableTransaction<T>(stable: AgentFS, fn: () => T): T {
  const { db } = stable;
  if (db.inTransaction) return stable.transaction(fn);
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = stable.transaction(fn);
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    stable.fs.inodes.invalidate();
    throw error;
  }
}

/**
 * Brings the given paths of stable.db in line with the working tree: every folder above them first (so a
 * folder the human replaced by a link or a file is known), then each path with what lies below it, under one
 * reading of the tree's ignore rules. The paths themselves and the folders above them are imported even where
 * the rules leave them out (not what else lies below them), so an accept or an undo compares with what the disk
 * holds there; `completeOperation` takes them out again once the disk is written.
 */
export function importAffected(stable: AgentFS, root: string, paths: readonly string[]): void {
  // the tree's .gitignore files, read once for every path
  const rules = IgnoreRules.forTree(root);
  importPaths(stable, root, ancestorsOf(paths), { rules, evenIgnored: true });
  importPaths(stable, root, paths, { subtree: true, rules, evenIgnored: true });
}
