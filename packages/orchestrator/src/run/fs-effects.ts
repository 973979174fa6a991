import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import { isAgentFSError, type OverlayFileSystem, stateOf, walkTree } from '@cairn/agentfs';
import { type CborValue, fsPathExcluded } from '@cairn/air';
import type { BlobStore, TouchedLog } from '@cairn/workspace';
import picomatch from 'picomatch';
import type { RE2JS } from 're2js';

const load = createRequire(import.meta.url);
let engine: typeof RE2JS | undefined;

/** RE2 for content search, loaded on the first search: most processes never search file contents. */
function regexEngine(): typeof RE2JS {
  engine ??= (load('re2js') as typeof import('re2js')).RE2JS;
  return engine;
}

/** What an fs effect did: a receipt payload, `ok` or `error`. */
export interface EffectResult {
  status: 'ok' | 'error';
  payload: CborValue;
}

/** The agent's view an fs effect acts on: its overlay, where it keeps bytes, and what it may see. */
export interface FsView {
  fs: OverlayFileSystem;
  blobs: BlobStore;
  touched: TouchedLog;
  run: number;
  readExclude: readonly string[];
  writeExclude: readonly string[];
}

export const MAX_SEARCH_FILES = 1000;
export const MAX_SEARCH_MATCHES = 500;
export const MAX_TREE_LINES = 400;
/** The most `read_file` returns: a program's heap (128 MiB by default) holds the text, twice over as UTF-16. */
export const MAX_READ_BYTES = 16 * 1024 * 1024;
const MAX_MATCH_TEXT = 240;
const BINARY_SNIFF = 8000;

const failed = (error: string, code: string): EffectResult => ({ status: 'error', payload: { error, code } });

/**
 * `fs.read`: a file's bytes (kept as a blob), or with `stat_only` just what is there. A file larger than
 * `MAX_READ_BYTES` is refused by its size, before a byte of it is read.
 */
export function performRead(view: FsView, path: string, statOnly: boolean): EffectResult {
  const found = kindAndSize(view.fs, path);
  if (statOnly) {
    const kind = found.kind === 'symlink' ? followKind(view.fs, path) : found.kind;
    return { status: 'ok', payload: { path, kind, size: found.kind === 'file' ? found.size : 0 } };
  }
  if (found.kind === 'absent') return failed(`no such file: ${path}`, 'ENOENT');
  if (found.kind === 'dir') return failed(`${path || '.'} is a directory (use list_dir)`, 'EISDIR');
  if (found.kind === 'symlink') return failed(`${path} is a symbolic link that leads nowhere`, 'ENOENT');
  if (found.size > MAX_READ_BYTES)
    return failed(
      `${path} is ${found.size} bytes; read_file returns at most ${MAX_READ_BYTES} (${MAX_READ_BYTES / 1024 / 1024} MiB), so it is not read`,
      'EFBIG',
    );
  const state = stateOf(view.fs, '/' + path);
  if (state.kind !== 'file') return failed(`no such file: ${path}`, 'ENOENT');
  if (isBinary(state.content))
    return failed(`${path} is a binary file (${state.content.length} bytes); the tool functions read text`, 'EBINARY');
  // text in another encoding (Latin-1, Shift JIS…) would come back with replacement characters, and a program that
  // wrote it back would change bytes it never meant to: Cairn reads it as diffs and merges do, as binary
  if (!isUtf8(state.content))
    return failed(
      `${path} is not UTF-8 text (${state.content.length} bytes); the tool functions read and write UTF-8, so it is left as it is`,
      'EBINARY',
    );
  const contentRef = view.blobs.put(state.content, state.hash);
  return { status: 'ok', payload: { path, kind: 'file', size: state.content.length, content_ref: contentRef } };
}

/** `fs.list`: the names in a directory (directories end with `/`), or the whole tree as indented text. */
export function performList(view: FsView, path: string, recursive: boolean): EffectResult {
  const state = stateOf(view.fs, '/' + path);
  if (state.kind === 'absent') return failed(`no such directory: ${path || '.'}`, 'ENOENT');
  if (state.kind !== 'dir') return failed(`${path} is not a directory`, 'ENOTDIR');
  if (recursive) {
    const lines: string[] = [];
    let more = 0;
    walkTree(
      view.fs,
      path,
      (p) => fsPathExcluded(p, view.readExclude),
      (entry) => {
        const depth = entry.path.split('/').length - (path === '' ? 1 : path.split('/').length + 1);
        if (lines.length >= MAX_TREE_LINES) more++;
        else lines.push(`${'  '.repeat(depth)}${entry.path.slice(entry.path.lastIndexOf('/') + 1)}${entry.kind === 'dir' ? '/' : ''}`);
      },
    );
    if (more > 0) lines.push(`… and ${more} more entries`);
    return { status: 'ok', payload: { entries: [], truncated: more > 0, result_ref: view.blobs.put(lines.join('\n')) } };
  }
  const entries = view.fs
    .readdirPlus('/' + path)
    .filter((e) => !fsPathExcluded(path === '' ? e.name : `${path}/${e.name}`, view.readExclude))
    .map((e) => (e.stats.isDirectory() ? `${e.name}/` : e.name));
  return { status: 'ok', payload: { entries } };
}

/** `fs.search`: file paths matching a glob, or lines matching a regular expression (RE2: linear time, no backtracking). */
export function performSearch(view: FsView, pattern: string, path: string, content: boolean): EffectResult {
  const state = stateOf(view.fs, '/' + path);
  if (state.kind === 'absent') return failed(`no such file or directory: ${path || '.'}`, 'ENOENT');
  const skip = (p: string) => fsPathExcluded(p, view.readExclude);
  if (!content) {
    let isMatch: (p: string) => boolean;
    try {
      isMatch = picomatch(pattern, { dot: true });
    } catch (error) {
      return failed(`invalid glob "${pattern}": ${(error as Error).message}`, 'EINVAL');
    }
    const matches: string[] = [];
    let truncated = false;
    walkTree(view.fs, path, skip, (entry) => {
      if (entry.kind === 'dir' || !isMatch(entry.path)) return true;
      if (matches.length >= MAX_SEARCH_FILES) {
        truncated = true;
        return false;
      }
      matches.push(entry.path);
      return true;
    });
    return { status: 'ok', payload: { matches, truncated } };
  }
  let regex: RE2JS;
  try {
    regex = regexEngine().compile(pattern);
  } catch (error) {
    return failed(`invalid regular expression "${pattern}": ${(error as Error).message}`, 'EINVAL');
  }
  const found: { path: string; line: number; text: string }[] = [];
  let truncated = false;
  const searchFile = (file: string): boolean => {
    const bytes = view.fs.readFile('/' + file);
    if (isBinary(bytes) || !isUtf8(bytes)) return true;
    const text = bytes.toString('utf8');
    if (!regex.matcher(text).find()) return true;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!regex.matcher(lines[i]!).find()) continue;
      if (found.length >= MAX_SEARCH_MATCHES) {
        truncated = true;
        return false;
      }
      found.push({ path: file, line: i + 1, text: lines[i]!.slice(0, MAX_MATCH_TEXT) });
    }
    return true;
  };
  if (state.kind === 'file') searchFile(path);
  else if (state.kind === 'dir') walkTree(view.fs, path, skip, (entry) => (entry.kind === 'file' ? searchFile(entry.path) : true));
  return { status: 'ok', payload: { matches: [...new Set(found.map((m) => m.path))], truncated, result_ref: view.blobs.putJson(found) } };
}

/** The write operations of `fs.write`. */
export type WriteOp =
  | { op: 'write'; path: string; content: Uint8Array; mode?: number }
  | { op: 'delete'; path: string }
  | { op: 'move'; path: string; to: string }
  | { op: 'link'; path: string; target: string }
  | { op: 'mkdir'; path: string; mode: number }
  | { op: 'chmod'; path: string; mode: number };

/** `fs.write`: writes, deletes or moves in the overlay, keeping what each touched path held before. */
export function performWrite(view: FsView, write: WriteOp): EffectResult {
  const { fs, touched, run } = view;
  const keep = (path: string) => touched.record(run, path, stateOf(fs, '/' + path));
  try {
    if (write.op === 'write') {
      const before = stateOf(fs, '/' + write.path);
      if (before.kind === 'dir') return failed(`${write.path} is a directory`, 'EISDIR');
      keep(write.path);
      fs.writeFile('/' + write.path, write.content, { noFollow: true });
      if (write.mode !== undefined) fs.chmod('/' + write.path, write.mode & 0o7777);
      return { status: 'ok', payload: { op: 'write', path: write.path, size: write.content.length, created: before.kind === 'absent' } };
    }
    if (write.op === 'link' || write.op === 'mkdir') return performMake(view, write);
    const source = stateOf(fs, '/' + write.path);
    if (source.kind === 'absent') return failed(`no such file: ${write.path}`, 'ENOENT');
    const below = source.kind === 'dir' ? subtree(view, write.path) : [];
    const blocked = below.find((p) => fsPathExcluded(p, view.writeExclude));
    if (blocked !== undefined) return failed(`${blocked} is protected from writing`, 'EPERM');
    if (write.op === 'chmod') {
      keep(write.path);
      fs.chmod('/' + write.path, write.mode & 0o7777);
      return { status: 'ok', payload: { op: 'chmod', path: write.path, size: 0, created: false } };
    }
    if (write.op === 'delete') {
      for (const p of [write.path, ...below]) keep(p);
      fs.rm('/' + write.path, { recursive: true, noFollow: true });
      return { status: 'ok', payload: { op: 'delete', path: write.path, size: 0, created: false } };
    }
    const target = stateOf(fs, '/' + write.to);
    if (target.kind === 'dir')
      return failed(`${write.to} is a directory; move_file does not move into directories (give the full new path)`, 'EISDIR');
    if (write.to === write.path || write.to.startsWith(write.path + '/')) return failed(`cannot move ${write.path} into itself`, 'EINVAL');
    for (const p of [write.path, ...below]) keep(p);
    for (const p of [write.to, ...below.map((p) => write.to + p.slice(write.path.length))]) keep(p);
    // the target's folders are made as needed, as write_file makes a file's
    const folder = write.to.includes('/') ? write.to.slice(0, write.to.lastIndexOf('/')) : '';
    if (folder !== '') fs.mkdir('/' + folder, { recursive: true, noFollow: true });
    fs.rename('/' + write.path, '/' + write.to, { noFollow: true });
    return { status: 'ok', payload: { op: 'move', path: write.path, to: write.to, size: 0, created: target.kind === 'absent' } };
  } catch (error) {
    if (isAgentFSError(error)) return failed(`${error.code}: ${describeFsError(error)}`, error.code);
    throw error;
  }
}

/** A symbolic link (replacing a file or link there) or a folder, with the folders above made as needed. */
function performMake(view: FsView, write: Extract<WriteOp, { op: 'link' | 'mkdir' }>): EffectResult {
  const { fs, touched, run } = view;
  const before = stateOf(fs, '/' + write.path);
  const folder = write.path.includes('/') ? write.path.slice(0, write.path.lastIndexOf('/')) : '';
  if (folder !== '') fs.mkdir('/' + folder, { recursive: true, noFollow: true });
  if (write.op === 'mkdir') {
    if (before.kind !== 'absent' && before.kind !== 'dir') return failed(`${write.path} exists and is not a directory`, 'EEXIST');
    touched.record(run, write.path, before);
    if (before.kind === 'absent') fs.mkdir('/' + write.path, { recursive: true, noFollow: true });
    fs.chmod('/' + write.path, write.mode & 0o7777);
    return { status: 'ok', payload: { op: 'mkdir', path: write.path, size: 0, created: before.kind === 'absent' } };
  }
  if (before.kind === 'dir') return failed(`${write.path} is a directory`, 'EISDIR');
  touched.record(run, write.path, before);
  if (before.kind !== 'absent') fs.rm('/' + write.path, { noFollow: true });
  fs.symlink(write.target, '/' + write.path);
  return { status: 'ok', payload: { op: 'link', path: write.path, size: 0, created: before.kind === 'absent' } };
}

function subtree(view: FsView, dir: string): string[] {
  const out: string[] = [];
  walkTree(
    view.fs,
    dir,
    () => false,
    (entry) => {
      out.push(entry.path);
    },
  );
  return out;
}

/** What is at the path (not following a last link) and, for a file, its size, from its stat alone. */
function kindAndSize(fs: OverlayFileSystem, path: string): { kind: 'absent' | 'dir' | 'symlink' | 'file'; size: number } {
  let stats: ReturnType<OverlayFileSystem['lstat']>;
  try {
    stats = fs.lstat('/' + path);
  } catch (error) {
    if (isAgentFSError(error, 'ENOENT') || isAgentFSError(error, 'ENOTDIR')) return { kind: 'absent', size: 0 };
    throw error;
  }
  if (stats.isDirectory()) return { kind: 'dir', size: 0 };
  return stats.isSymbolicLink() ? { kind: 'symlink', size: 0 } : { kind: 'file', size: stats.size };
}

function followKind(fs: OverlayFileSystem, path: string): string {
  try {
    return fs.stat('/' + path).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'absent';
  }
}

function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF).indexOf(0) !== -1;
}

function describeFsError(error: Error & { path?: string | undefined }): string {
  const message = error.message.replace(/^E[A-Z]+: /, '');
  return message.replace(/, (\w+) '\/(.*)'$/, ' ($1 $2)');
}
