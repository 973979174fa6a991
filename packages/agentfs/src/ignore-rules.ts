import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Names never imported, written back or created by an overlay, whatever .gitignore says: VCS metadata and Cairn's own files. */
export const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['.git', '.agentfs', '.cairn', '.hg', '.svn']);

const IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * True when a name is one of `ALWAYS_SKIPPED` on some file system: compared without letter case (macOS and
 * Windows see `.GIT` as `.git`), without the code points HFS+ ignores, and without the trailing dots and
 * spaces Windows drops.
 */
export function isProtectedName(name: string): boolean {
  if (ALWAYS_SKIPPED.has(name)) return true;
  const folded = name
    .replace(IGNORABLE, '')
    .replace(/[. ]+$/, '')
    .toLowerCase();
  return ALWAYS_SKIPPED.has(folded);
}

/** True when a project-relative (or store) path has a component that `isProtectedName` protects. */
export function isProtectedPath(path: string): boolean {
  return path.split('/').some(isProtectedName);
}

interface Scope {
  dir: string;
  rules: Ignore;
}

/**
 * The .gitignore rules in force for one directory: every .gitignore from the root down,
 * each matching paths relative to its own directory, as git does.
 */
export class IgnoreRules {
  private readonly scopes: readonly Scope[];

  private constructor(scopes: readonly Scope[]) {
    this.scopes = scopes;
  }

  /** Rules for the root directory: its .gitignore plus `extra` patterns. */
  static forRoot(root: string, extra: readonly string[] = []): IgnoreRules {
    const rules = ignore().add([...extra]);
    const own = readGitignore(root);
    if (own !== undefined) rules.add(own);
    return new IgnoreRules([{ dir: '', rules }]);
  }

  /** Rules for a subdirectory `rel` (project-relative), adding its own .gitignore if any. */
  enter(root: string, rel: string): IgnoreRules {
    const own = readGitignore(join(root, rel));
    return own === undefined ? this : new IgnoreRules([...this.scopes, { dir: rel, rules: ignore().add(own) }]);
  }

  /**
   * True when the project-relative path `rel` is ignored under `root`: a protected name, or matched by the
   * .gitignore files from the root down, itself or any directory above it (as `importTree` would skip it).
   */
  static ignoresPath(root: string, rel: string, isDir: boolean): boolean {
    const parts = rel.split('/').filter((part) => part !== '');
    let rules = IgnoreRules.forRoot(root);
    for (let i = 0; i < parts.length; i++) {
      const here = parts.slice(0, i + 1).join('/');
      const last = i === parts.length - 1;
      if (rules.ignores(here, last ? isDir : true)) return true;
      if (!last) rules = rules.enter(root, here);
    }
    return false;
  }

  /** True when the project-relative path is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (isProtectedName(name)) return true;
    for (const scope of this.scopes) {
      const local = scope.dir === '' ? rel : rel.slice(scope.dir.length + 1);
      if (scope.rules.ignores(isDir ? local + '/' : local)) return true;
    }
    return false;
  }
}

function readGitignore(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, '.gitignore'), 'utf8');
  } catch {
    return undefined;
  }
}
