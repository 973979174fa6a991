import { cpSync, lstatSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isHiddenFromChecks } from './hidden-files.js';
import type { ProposedFile } from './proposed-file.js';

/**
 * Writes the proposal's files into `layer` (an empty folder), the upper lower layer of the overlay: the cost
 * is the size of the change, never of the project. Deletions are returned, for the view to remove.
 */
export function writeProposalLayer(layer: string, changes: readonly ProposedFile[]): string[] {
  const deleted: string[] = [];
  for (const change of changes) {
    if (isHiddenFromChecks(change.path)) continue;
    if (change.content === null) {
      deleted.push(change.path);
      continue;
    }
    const target = join(layer, change.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, change.content);
  }
  return deleted;
}

/**
 * Copies the working tree into `copy` (without `.agentfs/`, `.cairn/` or `.env*` files; links copied as
 * links) and lays the proposal over it: the fallback where the kernel refuses an overlay. Costs the size of
 * the project, which is why it is only the fallback.
 */
export function materializeCopy(root: string, copy: string, changes: readonly ProposedFile[]): void {
  cpSync(root, copy, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (source) => {
      const rel = relative(root, source);
      return rel === '' || !isHiddenFromChecks(rel.split('\\').join('/'));
    },
  });
  const realCopy = realpathSync(copy);
  for (const change of changes) {
    if (isHiddenFromChecks(change.path)) continue;
    const target = join(copy, change.path);
    mkdirSync(dirname(target), { recursive: true });
    // A link in the copy must not carry the proposal out of it.
    const parent = relative(realCopy, realpathSync(dirname(target)));
    if (parent.startsWith('..')) continue;
    if (isLink(target)) rmSync(target);
    if (change.content === null) rmSync(target, { force: true, recursive: true });
    else writeFileSync(target, change.content);
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
