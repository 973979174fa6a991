import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { IndexNames } from './git-index.js';

/** The git repository a project folder lies in: where its metadata is, and where the project sits in its work tree. */
export interface GitRepository {
  /** The folder holding `.git`. */
  top: string;
  /** The repository's own folder (`.git`, or what a `.git` file names for a linked worktree). */
  gitDir: string;
  /** Where the parts shared by linked worktrees are (`info/exclude`, `config`). */
  commonDir: string;
  /** The project folder's path from `top` with a trailing `/`, or '' when the project is the top. */
  prefix: string;
}

/** The repository holding `root` (found upwards, as git finds it), or undefined when it is in none. */
export function findGitRepository(root: string): GitRepository | undefined {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    const gitDir = gitDirAt(dir);
    if (gitDir !== undefined) {
      const prefix = relative(dir, resolve(root)).split(sep).join('/');
      return { top: dir, gitDir, commonDir: commonDirOf(gitDir), prefix: prefix === '' ? '' : prefix + '/' };
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function gitDirAt(dir: string): string | undefined {
  const dotGit = join(dir, '.git');
  try {
    const stats = statSync(dotGit, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    if (stats.isDirectory()) return dotGit;
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
    return named === undefined ? undefined : resolve(dir, named);
  } catch {
    return undefined;
  }
}

function commonDirOf(gitDir: string): string {
  try {
    return resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/**
 * What the repository's index tracks below the project folder: is a path a tracked file, or a folder holding one?
 * The index is read as bytes and searched in its own order (no process is started, no name decoded); only an index
 * this reader does not know (a split index) is asked of `git ls-files`. Kept per index file while its size, time
 * and inode stay.
 */
export class TrackedPaths {
  private static readonly cache = new Map<string, { stamp: string; tracked: TrackedPaths }>();
  static readonly NONE = new TrackedPaths(undefined, new Set(), '');

  private constructor(
    private readonly index: IndexNames | undefined,
    /** What `git ls-files` listed, where the index could not be read. */
    private readonly listed: ReadonlySet<string>,
    private readonly prefix: string,
  ) {}

  /** What the repository's index tracks below the project folder (nothing when it has no index). */
  static of(repository: GitRepository | undefined, root: string): TrackedPaths {
    if (repository === undefined) return TrackedPaths.NONE;
    const indexPath = join(repository.gitDir, 'index');
    let stamp: string;
    try {
      const stats = statSync(indexPath);
      stamp = `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
    } catch {
      return TrackedPaths.NONE;
    }
    const cached = TrackedPaths.cache.get(indexPath);
    if (cached?.stamp === stamp) return cached.tracked;
    let index: IndexNames | undefined;
    try {
      index = IndexNames.read(readFileSync(indexPath));
    } catch {
      return TrackedPaths.NONE;
    }
    const listed = new Set<string>();
    if (index === undefined)
      for (const path of listWithGit(root, repository.prefix)) {
        listed.add(path);
        for (let slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) listed.add(path.slice(0, slash) + '/');
      }
    const tracked = new TrackedPaths(index, listed, repository.prefix);
    TrackedPaths.cache.set(indexPath, { stamp, tracked });
    return tracked;
  }

  /** True when the project-relative path is a tracked file or a folder holding one. */
  covers(rel: string): boolean {
    const path = this.prefix + rel;
    if (this.index === undefined) return this.listed.has(path) || this.listed.has(path + '/');
    return this.index.has(Buffer.from(path)) || this.index.hasPrefix(Buffer.from(path + '/'));
  }

  /** The tracked files below the project folder, project-relative: for comparing two readings of an index. */
  paths(): Set<string> {
    const all = this.index?.paths() ?? [...this.listed].filter((path) => !path.endsWith('/'));
    const out = new Set<string>();
    for (const path of all) if (path.startsWith(this.prefix) && !path.endsWith('/')) out.add(path.slice(this.prefix.length));
    return out;
  }
}

/** `git ls-files` from the top of the work tree (an index `readIndexPaths` cannot read); nothing when git fails. */
function listWithGit(root: string, prefix: string): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--full-name'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\0').filter((path) => path !== '' && path.startsWith(prefix));
  } catch {
    return [];
  }
}

/**
 * The exclude files git reads besides `.gitignore`, lowest precedence first: the user's `core.excludesFile`
 * (from the repository's config, else `~/.gitconfig`, else `$XDG_CONFIG_HOME/git/config`; by default
 * `$XDG_CONFIG_HOME/git/ignore`), then the repository's `info/exclude`. Each text that could be read.
 */
export function readExcludeFiles(repository: GitRepository | undefined): string[] {
  const texts: string[] = [];
  const home = homedir();
  const xdg = process.env.XDG_CONFIG_HOME || join(home, '.config');
  const configs = [
    ...(repository === undefined ? [] : [join(repository.commonDir, 'config')]),
    join(home, '.gitconfig'),
    join(xdg, 'git/config'),
  ];
  let excludesFile: string | undefined;
  for (const config of configs) {
    excludesFile = excludesFileIn(readText(config));
    if (excludesFile !== undefined) break;
  }
  const global = excludesFile === undefined ? join(xdg, 'git/ignore') : expandHome(excludesFile, home, repository?.top ?? home);
  for (const file of [global, ...(repository === undefined ? [] : [join(repository.commonDir, 'info/exclude')])]) {
    const text = readText(file);
    if (text !== undefined) texts.push(text);
  }
  return texts;
}

/** `core.excludesFile` of a git config file's text (its last setting), or undefined. */
function excludesFileIn(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let inCore = false;
  let found: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*")?\s*\]/.exec(line);
    if (section !== null) {
      inCore = section[1]!.toLowerCase() === 'core';
      continue;
    }
    const entry = /^excludesfile\s*=\s*(.*)$/i.exec(line);
    if (inCore && entry !== null) found = unquote(entry[1]!.replace(/\s[;#].*$/, '').trim());
  }
  return found === '' ? undefined : found;
}

function unquote(value: string): string {
  return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1).replace(/\\(["\\])/g, '$1') : value;
}

function expandHome(path: string, home: string, top: string): string {
  if (path === '~' || path.startsWith('~/')) return join(home, path.slice(1));
  return isAbsolute(path) ? path : resolve(top, path);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
