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

/**
 * The real path of a normalised path: every symbolic link followed, in every component. A missing last
 * component is allowed (its parent is resolved and the name appended: where a new file would go); a missing
 * directory on the way is ENOENT; a loop is ELOOP; a link with an absolute target, or one that climbs above
 * the root, is EPERM: it points outside the project the store mirrors.
 */
export function resolveRealPath<H>(tree: WalkableTree<H>, normalized: string, syscall: string): string {
  const stack: Located<H>[] = [{ entry: tree.root(), path: '/' }];
  let pending = splitPath(normalized);
  let index = 0;
  let hops = 0;
  while (index < pending.length) {
    const name = pending[index++]!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (stack.length === 1) throw new AgentFSError('EPERM', syscall, normalized, 'a symbolic link on the way points outside the project');
      stack.pop();
      continue;
    }
    const top = stack[stack.length - 1]!;
    if (kindOfMode(tree.modeOf(top.entry)) !== 'dir') throw new AgentFSError('ENOTDIR', syscall, normalized);
    const child = tree.lookup(top.entry, top.path, name);
    const isLast = pending.slice(index).every((rest) => rest === '' || rest === '.');
    if (child === undefined) {
      if (isLast) return joinPath(top.path, name);
      throw new AgentFSError('ENOENT', syscall, normalized);
    }
    if (kindOfMode(tree.modeOf(child)) === 'symlink') {
      if (++hops > MAX_SYMLINK_HOPS) throw new AgentFSError('ELOOP', syscall, normalized);
      const target = tree.linkTarget(child);
      if (target.startsWith('/'))
        throw new AgentFSError(
          'EPERM',
          syscall,
          normalized,
          `the symbolic link ${joinPath(top.path, name)} points outside the project (${target})`,
        );
      pending = [...target.split('/'), ...pending.slice(index)];
      index = 0;
      continue;
    }
    stack.push({ entry: child, path: joinPath(top.path, name) });
  }
  return stack[stack.length - 1]!.path;
}

/** Throws ELOOP when an existing component of a normalised path is a symbolic link (the last one too, with `includeLast`). */
export function refuseLinks<H>(tree: WalkableTree<H>, normalized: string, syscall: string, includeLast: boolean): void {
  let at = tree.root();
  let atPath = '/';
  const parts = splitPath(normalized).filter((part) => part !== '' && part !== '.');
  for (let i = 0; i < parts.length; i++) {
    if (kindOfMode(tree.modeOf(at)) !== 'dir') return;
    const child = tree.lookup(at, atPath, parts[i]!);
    if (child === undefined) return;
    const isLast = i === parts.length - 1;
    if (kindOfMode(tree.modeOf(child)) === 'symlink' && (!isLast || includeLast)) {
      throw new AgentFSError('ELOOP', syscall, normalized, `${joinPath(atPath, parts[i]!)} is a symbolic link, and this call follows none`);
    }
    atPath = joinPath(atPath, parts[i]!);
    at = child;
  }
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
