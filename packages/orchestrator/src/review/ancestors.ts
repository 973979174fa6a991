/** Every folder above the given paths, shallowest first: imported first, so a folder the human replaced (by a link, a file) is known. */
export function ancestorsOf(paths: readonly string[]): string[] {
  const ancestors = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) ancestors.add(parts.slice(0, i).join('/'));
  }
  return [...ancestors].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
}
