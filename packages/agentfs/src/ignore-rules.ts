import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Names never imported, written back or created by an overlay, whatever .gitignore says: VCS metadata and Cairn's own files. */
export const ALWAYS_SKIPPED: ReadonlySet<string> = new Set(['.git', '.agentfs', '.cairn', '.hg', '.svn']);

const IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** The lowest code point `IGNORABLE` drops. */
const FIRST_IGNORABLE = 0x200c;

/**
 * True when a name is one of `ALWAYS_SKIPPED` on some file system: compared without letter case (macOS and
 * Windows see `.GIT` as `.git`), without the code points HFS+ ignores, and without the trailing dots and
 * spaces Windows drops.
 */
export function isProtectedName(name: string): boolean {
  // every protected name starts with a dot once the ignorable code points are gone
  const first = name.charCodeAt(0);
  if (first !== 0x2e && first < FIRST_IGNORABLE) return false;
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
    const own = readGitignore(root);
    if (own === undefined && extra.length === 0) return new IgnoreRules([]);
    const rules = ignore().add([...extra]);
    if (own !== undefined) rules.add(own);
    return new IgnoreRules([{ dir: '', rules }]);
  }

  /** The rules of every directory of the tree at `root`, each read when first asked for and kept (see `TreeIgnoreRules`). */
  static forTree(root: string, extra: readonly string[] = []): TreeIgnoreRules {
    return new TreeIgnoreRules(root, extra);
  }

  /**
   * Rules for a subdirectory `rel` (project-relative), adding its own .gitignore if any; `hasGitignore: false`
   * (the caller listed the directory and saw none) spares the read.
   */
  enter(root: string, rel: string, hasGitignore = true): IgnoreRules {
    const own = hasGitignore ? readGitignore(join(root, rel)) : undefined;
    return own === undefined ? this : new IgnoreRules([...this.scopes, { dir: rel, rules: ignore().add(own) }]);
  }

  /**
   * True when the project-relative path `rel` is ignored under `root`: a protected name, or matched by the
   * .gitignore files from the root down, itself or any directory above it (as `importTree` would skip it).
   */
  static ignoresPath(root: string, rel: string, isDir: boolean): boolean {
    return new TreeIgnoreRules(root).ignores(rel, isDir);
  }

  /** True when the project-relative path is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    if (isProtectedName(rel.slice(rel.lastIndexOf('/') + 1))) return true;
    for (const scope of this.scopes) {
      const local = scope.dir === '' ? rel : rel.slice(scope.dir.length + 1);
      if (scope.rules.ignores(isDir ? local + '/' : local)) return true;
    }
    return false;
  }
}

/**
 * The ignore rules of every directory of one tree, each read once and kept until `clear` (after a .gitignore
 * changed): what answers "is this path ignored?" for a stream of paths, as the watcher asks.
 */
export class TreeIgnoreRules {
  private readonly byDir = new Map<string, IgnoreRules>();
  private readonly ignoredDirs = new Map<string, boolean>();

  constructor(
    readonly root: string,
    private readonly extra: readonly string[] = [],
  ) {}

  /** The rules in force inside the project-relative directory `dir` ('' for the root). */
  at(dir: string): IgnoreRules {
    let found = this.byDir.get(dir);
    if (found === undefined) {
      const slash = dir.lastIndexOf('/');
      found = dir === '' ? IgnoreRules.forRoot(this.root, this.extra) : this.at(slash < 0 ? '' : dir.slice(0, slash)).enter(this.root, dir);
      this.byDir.set(dir, found);
    }
    return found;
  }

  /** True when `rel`, or a directory above it, is protected or ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    const slash = rel.lastIndexOf('/');
    const parent = slash < 0 ? '' : rel.slice(0, slash);
    if (parent !== '' && this.ignoresDir(parent)) return true;
    return this.at(parent).ignores(rel, isDir);
  }

  /** Forgets every rule read (a .gitignore was added, changed or removed). */
  clear(): void {
    this.byDir.clear();
    this.ignoredDirs.clear();
  }

  private ignoresDir(dir: string): boolean {
    let found = this.ignoredDirs.get(dir);
    if (found === undefined) {
      found = this.ignores(dir, true);
      this.ignoredDirs.set(dir, found);
    }
    return found;
  }
}

function readGitignore(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, '.gitignore'), 'utf8');
  } catch {
    return undefined;
  }
}
