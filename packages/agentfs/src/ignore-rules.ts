import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { findGitRepository, type GitRepository, readExcludeFiles, TrackedPaths } from './git-repository.js';

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
  rules: Ignore;
  /** It has a negated pattern (`!…`), so it can also un-ignore. */
  negates: boolean;
  /** The scope's folder, project-relative ('' for the root and for the scopes above it). */
  dir: string;
  /** For a scope above the project folder: the project's path from the scope's folder, put before every path. */
  above: string;
}

/** How rules are read: `tracked: false` leaves git's index out, so a rule's match is all that counts. */
export interface RuleOptions {
  tracked?: boolean;
}

/** What every set of rules of one tree shares: the git repository it lies in, and (once asked for) what its index tracks. */
class TreeContext {
  private trackedPaths: TrackedPaths | undefined;
  readonly repository: GitRepository | undefined;

  constructor(
    readonly root: string,
    private readonly withIndex: boolean,
  ) {
    this.repository = findGitRepository(root);
  }

  /** Read when a rule first matches something: a tree that ignores nothing never reads the index. */
  tracked(): TrackedPaths {
    this.trackedPaths ??= this.withIndex ? TrackedPaths.of(this.repository, this.root) : TrackedPaths.NONE;
    return this.trackedPaths;
  }
}

/** How a path stands under the rules: kept, left out, or matched by a rule but kept because git tracks it (or a file below it). */
export type IgnoreVerdict = 'kept' | 'ignored' | 'tracked';

/**
 * The ignore rules in force for one directory, as git applies them: every .gitignore from the top of the
 * repository down (a deeper file's patterns, negations included, over a shallower one's), then the repository's
 * `info/exclude`, then the user's `core.excludesFile`. A path git tracks is never ignored (a file force-added,
 * or the folders above it), but the rest of an ignored folder stays ignored, and nothing below an ignored folder
 * is re-included by a negation.
 */
export class IgnoreRules {
  private constructor(
    private readonly scopes: readonly Scope[],
    private readonly context: TreeContext,
    /** The directory itself is ignored by a rule (kept because something below it is tracked). */
    private readonly insideIgnored: boolean,
  ) {}

  /** Rules for the root directory: its .gitignore plus `extra` patterns, over the ones above it. */
  static forRoot(root: string, extra: readonly string[] = [], options: RuleOptions = {}): IgnoreRules {
    const context = new TreeContext(root, options.tracked !== false);
    const scopes: Scope[] = [];
    const repository = context.repository;
    for (const text of readExcludeFiles(repository)) addScope(scopes, text, '', repository?.prefix ?? '');
    if (repository !== undefined && repository.prefix !== '') {
      const parts = repository.prefix.slice(0, -1).split('/');
      for (let depth = 0; depth < parts.length; depth++) {
        const text = readGitignore(join(repository.top, ...parts.slice(0, depth)));
        if (text !== undefined) addScope(scopes, text, '', parts.slice(depth).join('/') + '/');
      }
    }
    addScope(scopes, [...extra, ...(readGitignore(root)?.split(/\r?\n/) ?? [])], '', '');
    return new IgnoreRules(scopes, context, false);
  }

  /** The rules of every directory of the tree at `root`, each read when first asked for and kept (see `TreeIgnoreRules`). */
  static forTree(root: string, extra: readonly string[] = [], options: RuleOptions = {}): TreeIgnoreRules {
    return new TreeIgnoreRules(root, extra, options);
  }

  /**
   * Rules for a subdirectory `rel` (project-relative), adding its own .gitignore if any; `hasGitignore: false`
   * (the caller listed the directory and saw none) spares the read. Inside a folder a rule ignores (kept for the
   * tracked files in it) every other entry is ignored, and its .gitignore is not read, as git does.
   */
  enter(root: string, rel: string, hasGitignore = true): IgnoreRules {
    const inside = this.insideIgnored || this.matches(rel, true);
    if (inside) return this.insideIgnored ? this : new IgnoreRules(this.scopes, this.context, true);
    const own = hasGitignore ? readGitignore(join(root, rel)) : undefined;
    const scopes = own === undefined ? this.scopes : addScope([...this.scopes], own, rel, '');
    return scopes.length === this.scopes.length ? this : new IgnoreRules(scopes, this.context, false);
  }

  /** The rules inside a directory this one's rules matched but kept (`'tracked'`). */
  insideTracked(): IgnoreRules {
    return this.insideIgnored ? this : new IgnoreRules(this.scopes, this.context, true);
  }

  /**
   * True when the project-relative path `rel` is ignored under `root`: a protected name, or matched by the
   * ignore rules, itself or any directory above it (as `importTree` would skip it), and not tracked.
   */
  static ignoresPath(root: string, rel: string, isDir: boolean): boolean {
    return new TreeIgnoreRules(root).ignores(rel, isDir);
  }

  /** True when the project-relative path is left out of the mirror. */
  ignores(rel: string, isDir: boolean): boolean {
    return this.verdict(rel, isDir) === 'ignored';
  }

  /** Whether the project-relative path (an entry of this rules' directory) is kept, ignored, or kept because tracked. */
  verdict(rel: string, isDir: boolean): IgnoreVerdict {
    if (isProtectedName(rel.slice(rel.lastIndexOf('/') + 1))) return 'ignored';
    if (!this.matches(rel, isDir)) return 'kept';
    return this.context.tracked().covers(rel) ? 'tracked' : 'ignored';
  }

  /** True when a rule ignores the path (the deepest scope with a say decides), tracked or not. */
  private matches(rel: string, isDir: boolean): boolean {
    if (this.insideIgnored) return true;
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const scope = this.scopes[i]!;
      const local = scope.above + (scope.dir === '' ? rel : rel.slice(scope.dir.length + 1));
      const key = isDir ? local + '/' : local;
      // without a negation a scope can only ignore, which is the cheaper question
      if (!scope.negates) {
        if (scope.rules.ignores(key)) return true;
        continue;
      }
      const found = scope.rules.test(key);
      if (found.ignored) return true;
      if (found.unignored) return false;
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
    private readonly options: RuleOptions = {},
  ) {}

  /** The rules in force inside the project-relative directory `dir` ('' for the root). */
  at(dir: string): IgnoreRules {
    let found = this.byDir.get(dir);
    if (found === undefined) {
      const slash = dir.lastIndexOf('/');
      found =
        dir === ''
          ? IgnoreRules.forRoot(this.root, this.extra, this.options)
          : this.at(slash < 0 ? '' : dir.slice(0, slash)).enter(this.root, dir);
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

/** Adds a scope for the patterns of one ignore file (its text, or its lines), unless it holds none. */
function addScope(scopes: Scope[], patterns: string | readonly string[], dir: string, above: string): Scope[] {
  const lines = (typeof patterns === 'string' ? patterns.split(/\r?\n/) : patterns).filter(
    (line) => line.trim() !== '' && !line.startsWith('#'),
  );
  if (lines.length > 0) scopes.push({ rules: ignore().add(lines), negates: lines.some((line) => line.startsWith('!')), dir, above });
  return scopes;
}

function readGitignore(dir: string): string | undefined {
  try {
    return readFileSync(join(dir, '.gitignore'), 'utf8');
  } catch {
    return undefined;
  }
}
