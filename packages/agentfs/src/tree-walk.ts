import { AgentFSError } from './errors.js';
import { kindOfMode } from './mode.js';
import { joinPath, splitPath } from './path.js';

const MAX_SYMLINK_HOPS = 40;

/** The lookups a path walk needs from a tree of entries (a store, or an overlay of two). */
export interface WalkableTree<H> {
  root(): H;
  lookup(dir: H, dirPath: string, name: string): H | undefined;
  modeOf(entry: H): number;
  linkTarget(entry: H): string;
}

/** An entry found by a walk, with its real (symlink-free) path. */
export interface Located<H> {
  entry: H;
  path: string;
}

/** Why a walk stopped short: the code of the error `walkPath` throws. */
type WalkFailure = 'ENOENT' | 'ENOTDIR' | 'ELOOP';

/** The walk itself; returns the failure instead of throwing, so `tryWalkPath` costs no exception. */
function walk<H>(tree: WalkableTree<H>, normalized: string, followLast: boolean): Located<H> | WalkFailure {
  const stack: Located<H>[] = [{ entry: tree.root(), path: '/' }];
  let pending = splitPath(normalized);
  let index = 0;
  let hops = 0;
  while (index < pending.length) {
    const name = pending[index++]!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (stack.length > 1) stack.pop();
      continue;
    }
    const top = stack[stack.length - 1]!;
    if (kindOfMode(tree.modeOf(top.entry)) !== 'dir') return 'ENOTDIR';
    const child = tree.lookup(top.entry, top.path, name);
    if (child === undefined) return 'ENOENT';
    const isLast = index === pending.length;
    if (kindOfMode(tree.modeOf(child)) === 'symlink' && (!isLast || followLast)) {
      if (++hops > MAX_SYMLINK_HOPS) return 'ELOOP';
      const target = tree.linkTarget(child);
      if (target.startsWith('/')) stack.length = 1;
      pending = [...target.split('/'), ...pending.slice(index)];
      index = 0;
      continue;
    }
    stack.push({ entry: child, path: joinPath(top.path, name) });
  }
  return stack[stack.length - 1]!;
}

/**
 * Walks a normalised path from the root, following symlinks in every component but the last
 * (and the last too when `followLast`). Targets resolve like a chroot: `..` stops at the root.
 * Throws ENOENT, ENOTDIR or ELOOP.
 */
export function walkPath<H>(tree: WalkableTree<H>, normalized: string, syscall: string, followLast: boolean): Located<H> {
  const found = walk(tree, normalized, followLast);
  if (typeof found === 'string') throw new AgentFSError(found, syscall, normalized);
  return found;
}

/** Like `walkPath`, but returns undefined where the path does not resolve (ENOENT, ENOTDIR). */
export function tryWalkPath<H>(tree: WalkableTree<H>, normalized: string, syscall: string, followLast: boolean): Located<H> | undefined {
  const found = walk(tree, normalized, followLast);
  if (found === 'ELOOP') throw new AgentFSError('ELOOP', syscall, normalized);
  return typeof found === 'string' ? undefined : found;
}

/** The path a symlink at `linkPath` points to, resolved against its directory. */
export function symlinkTargetPath(linkDir: string, target: string): string {
  const parts = target.startsWith('/') ? [] : splitPath(linkDir);
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') parts.pop();
    else parts.push(segment);
  }
  return parts.length === 0 ? '/' : joinPath('/', parts.join('/'));
}
