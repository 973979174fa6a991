import { createHash } from 'node:crypto';
import { closeSync, type Dirent, lstatSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { type EntryState, isProtectedPath, type OverlayFileSystem, stateOf } from '@cairn/agentfs';
import { isHiddenFromChecks, type ViewWrites } from '@cairn/checks';
import type { BlobStore } from '@cairn/workspace';

/** One change an agent CLI made in its view, as a call of a capture tool. */
export type CapturedChange =
  | { op: 'put_file'; path: string; ref: string; size: number; mode: number }
  | { op: 'put_link'; path: string; target: string }
  | { op: 'make_dir'; path: string; mode: number }
  | { op: 'set_mode'; path: string; mode: number }
  | { op: 'delete_file'; path: string }
  | { op: 'move_file'; path: string; to: string };

/** What the capture needs besides the view: where bytes are kept, and which paths are never kept (protected from writing). */
export interface CaptureOptions {
  blobs: BlobStore;
  /** Bytes of a file above this are not kept (its write is refused by size); it is hashed in chunks instead. */
  maxFileBytes: number;
  /** True for a path whose write the governance refuses: its bytes are hashed, not kept. */
  refused: (path: string) => boolean;
  /** True for a path the project's ignore rules leave out of overlays (build output, dependencies): not captured. */
  ignored: (path: string, isDir: boolean) => boolean;
}

/** The changes, and how many written paths the ignore rules left out. */
export interface Capture {
  changes: CapturedChange[];
  ignored: number;
  /** Refused writes under one folder (`.git/`) left out past the first few, by folder: they would be refused alike. */
  protectedMore: { folder: string; count: number }[];
}

/** The writes under one protected folder (`.git/`) that become calls, each refused and journaled; the rest are counted. */
const PROTECTED_SHOWN = 10;

const CHUNK = 1 << 20;

/**
 * The changes an agent CLI made, from its view's writes compared with the agent's overlay (what the view
 * showed it): files with their bytes and modes, links, new folders, modes changed, deletions (whiteouts, and
 * the entries a folder made again hides), and renames (a file deleted whose bytes reappear at a new path).
 * What the view itself removed to hide it (`.env*`) is not a deletion. In walking order, parents first.
 */
export function captureWrites(fs: OverlayFileSystem, run: ViewWrites, options: CaptureOptions): Capture {
  const changes: CapturedChange[] = [];
  let ignored = 0;
  const hidden = new Set(run.hidden);
  const before = (path: string): EntryState => stateOf(fs, '/' + path);
  const deleteIfThere = (path: string) => {
    if (!hidden.has(path) && before(path).kind !== 'absent') changes.push({ op: 'delete_file', path });
  };
  const walk = (dir: string, rel: string, copy: boolean): void => {
    const entries = listFolder(dir);
    const names = new Set(entries.map((entry) => entry.name));
    const shown = copy ? names : run.merged?.get(rel);
    const was = before(rel);
    if (shown !== undefined && was.kind === 'dir') {
      for (const name of fs.readdir('/' + rel)) {
        const path = rel === '' ? name : `${rel}/${name}`;
        if (!shown.has(name) && !names.has(name) && !(copy && isHiddenFromChecks(path))) deleteIfThere(path);
      }
    }
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const disk = join(dir, entry.name);
      const stats = lstatSync(disk);
      if (stats.isCharacterDevice() && stats.rdev === 0) {
        deleteIfThere(path);
        continue;
      }
      // a copy holds all of `.git/` (unchanged, as the overlay never has it): only an overlay shows what was written there
      if (copy && isProtectedPath(path)) continue;
      // what version control and Cairn keep (`.git/`) is captured, for the governance to refuse where all can see
      if (!isProtectedPath(path) && options.ignored(path, stats.isDirectory())) {
        ignored++;
        continue;
      }
      const prior = before(path);
      if (stats.isDirectory()) {
        if (prior.kind !== 'dir') {
          if (prior.kind !== 'absent') changes.push({ op: 'delete_file', path });
          if (isEmpty(disk) || (stats.mode & 0o7777) !== 0o755) changes.push({ op: 'make_dir', path, mode: stats.mode & 0o7777 });
        } else if ((prior.mode & 0o7777) !== (stats.mode & 0o7777)) changes.push({ op: 'set_mode', path, mode: stats.mode & 0o7777 });
        walk(disk, path, copy);
      } else if (stats.isSymbolicLink()) {
        const target = readlinkSync(disk);
        if (prior.kind === 'symlink' && prior.content.toString('utf8') === target) continue;
        if (prior.kind === 'dir') changes.push({ op: 'delete_file', path });
        changes.push({ op: 'put_link', path, target });
      } else if (stats.isFile()) {
        const file = fileChange(disk, path, stats, prior, options);
        if (prior.kind === 'dir' && file !== undefined) changes.push({ op: 'delete_file', path });
        if (file !== undefined) changes.push(file);
      }
    }
  };
  walk(run.writes, '', run.view === 'copy');
  const { shown, more } = fewRefused(changes, options.refused);
  return { changes: withRenames(shown, fs), ignored, protectedMore: more };
}

function fileChange(disk: string, path: string, stats: Stats, prior: EntryState, options: CaptureOptions): CapturedChange | undefined {
  const mode = stats.mode & 0o7777;
  const keep = stats.size <= options.maxFileBytes && !options.refused(path);
  const content = keep ? readFileSync(disk) : undefined;
  const hex = content === undefined ? hashInChunks(disk) : createHash('sha256').update(content).digest('hex');
  if (prior.kind === 'file' && prior.hash === hex) {
    return (prior.mode & 0o7777) === mode ? undefined : { op: 'set_mode', path, mode };
  }
  const ref = content === undefined ? `sha256:${hex}` : options.blobs.put(content, hex);
  return { op: 'put_file', path, ref, size: stats.size, mode };
}

/**
 * The changes, with at most `PROTECTED_SHOWN` of those the governance refuses under each top folder (a `git commit`
 * writes hundreds in `.git/`): the rest would be refused alike, and are counted instead.
 */
function fewRefused(
  changes: CapturedChange[],
  refused: (path: string) => boolean,
): { shown: CapturedChange[]; more: { folder: string; count: number }[] } {
  const seen = new Map<string, number>();
  const shown = changes.filter((change) => {
    if (change.op === 'move_file' || !change.path.includes('/') || !refused(change.path)) return true;
    const folder = change.path.split('/')[0]!;
    const count = (seen.get(folder) ?? 0) + 1;
    seen.set(folder, count);
    return count <= PROTECTED_SHOWN;
  });
  const more = [...seen]
    .filter(([, count]) => count > PROTECTED_SHOWN)
    .map(([folder, count]) => ({ folder, count: count - PROTECTED_SHOWN }));
  return { shown, more };
}

/** A deleted file whose bytes and mode reappear at a path that was empty becomes one move. */
function withRenames(changes: CapturedChange[], fs: OverlayFileSystem): CapturedChange[] {
  const created = new Map<string, number>();
  changes.forEach((change, index) => {
    if (change.op === 'put_file' && stateOf(fs, '/' + change.path).kind === 'absent')
      created.set(change.ref.slice('sha256:'.length), index);
  });
  if (created.size === 0) return changes;
  const moves: CapturedChange[] = [];
  const dropped = new Set<number>();
  changes.forEach((change, index) => {
    if (change.op !== 'delete_file') return;
    const was = stateOf(fs, '/' + change.path);
    if (was.kind !== 'file') return;
    const at = created.get(was.hash);
    if (at === undefined || dropped.has(at)) return;
    const put = changes[at] as Extract<CapturedChange, { op: 'put_file' }>;
    dropped.add(at).add(index);
    moves.push({ op: 'move_file', path: change.path, to: put.path });
    if ((was.mode & 0o7777) !== put.mode) moves.push({ op: 'set_mode', path: put.path, mode: put.mode });
  });
  return [...moves, ...changes.filter((_, index) => !dropped.has(index))];
}

/**
 * The program that makes the captured changes, each a governed call; a refused one is logged and the rest go on.
 * It returns the paths it changed and why each refused change was refused.
 */
export function captureProgram(changes: readonly CapturedChange[], summary: string, notes: readonly string[] = []): string {
  const calls = changes.map((change) => JSON.stringify(callOf(change)));
  return [
    ...notes.map((line) => `await log(${JSON.stringify(line)});`),
    `// What the command wrote in its view, each change a governed tool call (written by Cairn).`,
    `const CHANGES = [\n${calls.join(',\n')}\n];`,
    `const changed = [];`,
    `const refused = [];`,
    `for (const [tool, ...args] of CHANGES) {`,
    `  try {`,
    `    await globalThis[tool](...args);`,
    `    changed.push(tool === 'move_file' ? args[1] : args[0]);`,
    `  } catch (error) {`,
    `    const message = String(error.message ?? error);`,
    `    refused.push(message.includes(args[0]) ? message : \`\${args[0]}: \${message}\`);`,
    `    await log(refused.at(-1));`,
    `  }`,
    `}`,
    `await submit_result(${JSON.stringify(summary)}, [...new Set(changed)]);`,
    `return { changed: [...new Set(changed)], refused };`,
    '',
  ].join('\n');
}

function callOf(change: CapturedChange): unknown[] {
  switch (change.op) {
    case 'put_file':
      return [change.op, change.path, change.ref, change.size, change.mode];
    case 'put_link':
      return [change.op, change.path, change.target];
    case 'make_dir':
    case 'set_mode':
      return [change.op, change.path, change.mode];
    case 'delete_file':
      return [change.op, change.path];
    case 'move_file':
      return [change.op, change.path, change.to];
  }
}

function listFolder(dir: string): Dirent[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function isEmpty(dir: string): boolean {
  return readdirSync(dir).length === 0;
}

function hashInChunks(path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(CHUNK);
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
