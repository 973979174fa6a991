/**
 * A project-relative path, normalised (`./a//b/` → `a/b`), or undefined for one that is absolute, climbs out
 * with `..`, or holds a NUL or a backslash: those are refused, never rewritten, so the path an adapter
 * touches is the path that was checked.
 */
export function normalProjectPath(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.includes('\0') || path.includes('\\') || path.startsWith('/')) return undefined;
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return undefined;
    parts.push(part);
  }
  return parts.join('/');
}
