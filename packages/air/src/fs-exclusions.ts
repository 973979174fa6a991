/**
 * Exclusions of the `fs` capability: gitignore-like glob patterns over project-relative paths. `*` matches
 * within one segment, `**` any number of segments, `?` one character. A pattern without a `/` (a trailing
 * one aside) matches a name at any depth (`.env*` excludes `.env` and `a/.env.local`); a pattern with one
 * is anchored at the project root (`.github/workflows/**`). A path is excluded when it or any directory
 * above it matches, so `.git/` excludes the directory and everything below it.
 *
 * Matching ignores what case-insensitive and normalising file systems ignore, since there the names are one
 * file: letter case (`.GIT/config` is `.git/config` on macOS and Windows), the code points HFS+ drops
 * (`.g\u200cit`), and trailing dots and spaces, which Windows drops (`.git.`).
 */

interface CompiledPattern {
  source: string;
  anchored: boolean;
  regex: RegExp;
}

const compiled = new Map<string, CompiledPattern>();

function compile(pattern: string): CompiledPattern {
  const hit = compiled.get(pattern);
  if (hit !== undefined) return hit;
  const body = pattern.replace(/^\/+/, '').replace(/\/+$/, '');
  const anchored = pattern.startsWith('/') || body.includes('/');
  let regex = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === '*' && body[i + 1] === '*') {
      const slashAfter = body[i + 2] === '/';
      regex += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') regex += '[^/]*';
    else if (c === '?') regex += '[^/]';
    else regex += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const result: CompiledPattern = { source: pattern, anchored, regex: new RegExp(`^${regex}$`, 'i') };
  if (compiled.size > 1000) compiled.clear();
  compiled.set(pattern, result);
  return result;
}

/** The first pattern that excludes `path` (project-relative), or undefined. */
export function fsExclusionOf(path: string, patterns: readonly string[]): string | undefined {
  if (patterns.length === 0) return undefined;
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  const folded = parts.map(foldName);
  for (const pattern of patterns) {
    if (typeof pattern !== 'string' || pattern.replace(/\//g, '') === '') continue;
    const { anchored, regex } = compile(pattern);
    for (let i = 1; i <= parts.length; i++) {
      if (regex.test(anchored ? parts.slice(0, i).join('/') : parts[i - 1]!)) return pattern;
      if (regex.test(anchored ? folded.slice(0, i).join('/') : folded[i - 1]!)) return pattern;
    }
  }
  return undefined;
}

const IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** A name as a normalising file system sees it: without the code points HFS+ ignores and the trailing dots and spaces Windows drops. */
function foldName(name: string): string {
  const folded = name.replace(IGNORABLE, '').replace(/[. ]+$/, '');
  return folded === '' ? name : folded;
}

/** True when `path` (project-relative) is excluded by one of the patterns. */
export function fsPathExcluded(path: string, patterns: readonly string[]): boolean {
  return fsExclusionOf(path, patterns) !== undefined;
}
