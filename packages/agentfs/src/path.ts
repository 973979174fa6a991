import { AgentFSError } from './errors.js';

/**
 * Normalises a store path to the absolute form `/a/b` (the root is `/`).
 * Leading and repeated slashes and `.` segments are dropped; `..` pops a segment.
 * An empty path, a NUL byte, or `..` above the root is EINVAL.
 */
export function normalizePath(path: string, syscall = 'path'): string {
  if (typeof path !== 'string') throw new AgentFSError('EINVAL', syscall, String(path), 'path must be a string');
  if (path.length === 0) throw new AgentFSError('EINVAL', syscall, path, 'empty path');
  if (path.includes('\0')) throw new AgentFSError('EINVAL', syscall, path.replaceAll('\0', '\\0'), 'path contains a NUL byte');
  const parts: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) throw new AgentFSError('EINVAL', syscall, path, 'path leaves the root');
      parts.pop();
      continue;
    }
    parts.push(segment);
  }
  return '/' + parts.join('/');
}

/** The segments of a normalised path (`/` has none). */
export function splitPath(normalized: string): string[] {
  return normalized === '/' ? [] : normalized.slice(1).split('/');
}

/** Joins a directory path and one name. */
export function joinPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** The parent directory of a normalised path (`/` for top-level entries and for `/`). */
export function parentPath(normalized: string): string {
  const slash = normalized.lastIndexOf('/');
  return slash <= 0 ? '/' : normalized.slice(0, slash);
}

/** The last segment of a normalised path (empty for `/`). */
export function baseName(normalized: string): string {
  return normalized.slice(normalized.lastIndexOf('/') + 1);
}

/** True when `path` is `ancestor` or lies below it. */
export function isWithin(path: string, ancestor: string): boolean {
  return ancestor === '/' || path === ancestor || path.startsWith(ancestor + '/');
}

/** Strips the leading slash: the project-relative form used in diffs and the working tree. */
export function toRelative(normalized: string): string {
  return normalized.slice(1);
}
