import { accessSync, constants, existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { absolutePath, CommandError, currentFolder, UsageError } from './context.js';

/**
 * How a command uses its project: creates it, needs one already started, needs one already started and only
 * reads it (so works on a read-only file system too), or works on any folder without creating anything.
 */
export type ProjectUse = 'create' | 'open' | 'read' | 'any';

/** Where a command's project is, and whether Cairn was started there (`.agentfs/` exists). */
export interface ProjectPlace {
  root: string;
  started: boolean;
}

/**
 * Finds the project as git finds a repository: `--project DIR` as given; else the nearest folder upwards
 * holding `.agentfs/`, never crossing a nearer `.git` (a folder, or a file as in worktrees and submodules),
 * whose folder is then the project; else the current folder.
 */
export function findProjectRoot(explicit: string | undefined, cwd?: string): ProjectPlace {
  if (explicit !== undefined) {
    if (explicit.trim() === '') throw new UsageError('--project needs a folder', 'give --project the folder of your project');
    const root = absolutePath(explicit);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(root).isDirectory();
    } catch {
      throw new UsageError(`--project ${explicit}: no such folder (${root})`, 'give --project the folder of your project');
    }
    if (!isDirectory)
      throw new UsageError(`--project ${explicit}: ${root} is a file, not a folder`, 'give --project the folder of your project');
    return { root, started: existsSync(join(root, '.agentfs')) };
  }
  const start = cwd ?? currentFolder();
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.agentfs'))) return { root: dir, started: true };
    if (existsSync(join(dir, '.git'))) return { root: dir, started: false };
    if (dirname(dir) === dir) return { root: start, started: false };
  }
}

/**
 * Which agent databases a command writes itself, so must be writable before it starts: every one (the daemon,
 * which settles and resumes agents; inbox processing; repair), the one its first argument names (accept,
 * undo, reject, restore), or none (the rest: a new agent's database only needs `.agentfs/` writable). So a
 * command costs the same with ten agents or ten thousand.
 */
export type AgentWrites = 'all' | { agent: string } | 'none';

/**
 * Refuses, with one clear line, a project the command cannot use: not started (for `open`), or with Cairn's
 * folders or the databases it writes unusable.
 */
export function checkProject(place: ProjectPlace, use: ProjectUse, writes: AgentWrites = 'all'): void {
  if (use === 'any') return;
  const wide = tooWide(place.root);
  if (wide !== undefined)
    throw new CommandError(
      'CAIRN_PROJECT',
      `${place.root} cannot be a project: ${wide}`,
      "run Cairn in a project's own folder (cd into it, or give --project DIR)",
    );
  const bare = bareRepositoryAt(place.root);
  if (bare !== undefined)
    throw new CommandError(
      'CAIRN_PROJECT',
      `${place.root} cannot be a project: ${bare === place.root ? 'it is' : `it is inside ${bare},`} a bare git repository, which has no working tree (its files are git's own: agents would write into hooks/ and config)`,
      `run Cairn in a clone with a working tree: \`git clone ${bare} DIR\`, then cd DIR`,
    );
  const agentfs = join(place.root, '.agentfs');
  const settings = join(place.root, '.cairn');
  if (place.started && !isFolder(agentfs))
    throw new CommandError(
      'CAIRN_PROJECT',
      `${agentfs} is a file, but Cairn keeps its databases in a folder of that name`,
      'move the file aside, then run the command again',
    );
  if (place.started)
    for (const name of ['stable.db', 'bin.db', 'receipt.key']) {
      const path = join(agentfs, name);
      if (existsSync(path) && isFolder(path))
        throw new CommandError(
          'CAIRN_PROJECT',
          `${path} is a folder, but Cairn keeps a file there`,
          'move the folder aside, then run the command again',
        );
    }
  if ((use === 'open' || use === 'read') && !place.started)
    throw new CommandError(
      'CAIRN_NOT_A_PROJECT',
      `not a Cairn project: ${place.root}`,
      'run `cairn spawn` or `cairn up` there to start one',
    );
  if (existsSync(settings) && !isFolder(settings))
    throw new CommandError(
      'CAIRN_PROJECT',
      `${settings} is a file, but Cairn keeps the project's settings in a folder of that name`,
      'move the file aside, then run the command again',
    );
  const targets = place.started ? [{ path: agentfs, folder: true }, ...databasesIn(agentfs, writes)] : [{ path: place.root, folder: true }];
  for (const { path, folder } of targets) {
    const why = unwritable(path, folder);
    // a command that only reads reads a project on a read-only file system as it is
    if (why === READ_ONLY_FILE_SYSTEM && use === 'read') continue;
    if (why !== undefined)
      throw new CommandError(
        'CAIRN_PROJECT',
        `cannot write to ${path === place.root ? agentfs : path}: ${why}`,
        "Cairn keeps its databases in the project's .agentfs/ folder; the project must be writable by you",
      );
  }
}

/**
 * The database files (and their journals) under `.agentfs/` a command writes, and whether each is a folder:
 * the shared ones always, agents' as `writes` says. Every one is listed only when every one is written.
 */
function databasesIn(agentfs: string, writes: AgentWrites): { path: string; folder: boolean }[] {
  if (writes === 'all')
    return readdirSync(agentfs, { withFileTypes: true })
      .filter((entry) => /\.db(-wal|-shm)?$/.test(entry.name))
      .map((entry) => ({ path: join(agentfs, entry.name), folder: entry.isDirectory() }));
  // an id that could not name a database file names no agent: the command says so itself
  const agent = writes !== 'none' && AGENT_ID.test(writes.agent) ? [`agent-${writes.agent}.db`] : [];
  const out: { path: string; folder: boolean }[] = [];
  for (const database of ['stable.db', 'bin.db', ...agent])
    for (const name of [database, `${database}-wal`, `${database}-shm`]) {
      const path = join(agentfs, name);
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats !== undefined) out.push({ path, folder: stats.isDirectory() });
    }
  return out;
}

/**
 * Why a folder is too wide to be a project, or undefined: the root of the file system, or a home folder (or a
 * folder above one), where SSH keys, cloud credentials and tokens sit and everything would be imported.
 */
function tooWide(root: string): string | undefined {
  const real = realPath(root);
  if (dirname(real) === real) return 'it is the root of the file system';
  const home = realPath(homedir());
  // a HOME of `/` (some services run so) is no home folder to protect
  if (dirname(home) === home) return undefined;
  if (home === real) return 'it is your home folder, where SSH keys, credentials and tokens sit';
  if (home.startsWith(real + sep)) return `it holds your home folder ${home}, where SSH keys, credentials and tokens sit`;
  return undefined;
}

/**
 * The bare git repository this folder is (or is inside), or undefined: a folder holding `HEAD`, `objects/`
 * and `refs/` as git's own, with no `.git` (a working tree's `.git` folder holds them too, and is no project).
 */
function bareRepositoryAt(root: string): string | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return undefined;
    const head = lstatSync(join(dir, 'HEAD'), { throwIfNoEntry: false });
    if (head?.isFile() === true && isFolder(join(dir, 'objects')) && isFolder(join(dir, 'refs'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** What an agent id can look like where it names a database file. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const READ_ONLY_FILE_SYSTEM = 'the file system is read-only';

/** True when the project's `.agentfs/` is on a read-only file system: it can be read, but not brought up to date. */
export function onReadOnlyFileSystem(root: string): boolean {
  return unwritable(join(root, '.agentfs'), true) === READ_ONLY_FILE_SYSTEM;
}

/** Why this file or folder cannot be written to, or undefined when it can; `folder` when the caller knows what it is. */
export function unwritable(path: string, folder = isFolder(path)): string | undefined {
  try {
    accessSync(path, constants.W_OK | (folder ? constants.X_OK : 0));
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // gone since it was listed (a database's -wal and -shm files come and go as processes close it)
    if (code === 'ENOENT') return undefined;
    return code === 'EROFS' ? READ_ONLY_FILE_SYSTEM : 'permission denied';
  }
}
