import { isAgentFSError, type OverlayFileSystem } from '@cairn/agentfs';
import { normalProjectPath } from '@cairn/air/project-path';

/**
 * Where a tool's path argument really leads.
 * - `resolved`: a project-relative path with every symbolic link followed (or every one but the last, for
 *   operations on the entry itself); this is what is checked against the grant and what is touched.
 * - `lexical`: the path climbs out, is absolute, or holds a NUL; it goes to the kernel as written so the
 *   refusal is the kernel's, journaled like every other.
 * - `refused`: the path cannot be followed (a link pointing outside the project, a loop).
 */
export type ResolvedPath = { type: 'resolved'; path: string } | { type: 'lexical'; path: string } | { type: 'refused'; reason: string };

/** Resolves a tool's path argument; `entry` resolves the parent only (delete and move act on a link itself). */
export function resolveToolPath(fs: OverlayFileSystem, raw: unknown, mode: 'follow' | 'entry', name = 'path'): ResolvedPath {
  if (typeof raw !== 'string') return { type: 'refused', reason: `${name} must be a string, not ${describe(raw)}` };
  const lexical = normalProjectPath(raw);
  if (lexical === undefined) return { type: 'lexical', path: raw };
  if (lexical === '') return { type: 'resolved', path: '' };
  try {
    if (mode === 'follow') return { type: 'resolved', path: relative(fs.realpath('/' + lexical)) };
    const slash = lexical.lastIndexOf('/');
    const parent = slash < 0 ? '' : relative(fs.realpath('/' + lexical.slice(0, slash)));
    const leaf = lexical.slice(slash + 1);
    return { type: 'resolved', path: parent === '' ? leaf : `${parent}/${leaf}` };
  } catch (error) {
    if (isAgentFSError(error, 'EPERM'))
      return { type: 'refused', reason: `"${raw}" leads through a symbolic link that points outside the project` };
    if (isAgentFSError(error, 'ELOOP')) return { type: 'refused', reason: `"${raw}" leads through a loop of symbolic links` };
    if (isAgentFSError(error, 'ENOENT') || isAgentFSError(error, 'ENOTDIR')) return { type: 'resolved', path: lexical };
    throw error;
  }
}

function relative(storePath: string): string {
  return storePath.replace(/^\/+/, '');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The key a path resolution is recorded under, so a replay resolves exactly as the recorded run did. */
export function resolutionKey(run: number, mode: 'follow' | 'entry', raw: string): string {
  return `${run}\0${mode}\0${raw}`;
}

/** The longest name of one file or folder most file systems take (bytes of UTF-8). */
export const MAX_NAME_BYTES = 255;
/** The longest path, project-relative, a write may create (bytes of UTF-8; the system's limit is 4096 with the NUL). */
export const MAX_PATH_BYTES = 4095;

/** Why a project-relative path cannot be created on disk (a name over 255 bytes, a path over 4095), or undefined. */
export function nameLimitProblem(path: string): string | undefined {
  const total = Buffer.byteLength(path, 'utf8');
  if (total > MAX_PATH_BYTES) return `the path is ${total} bytes long; file systems take at most ${MAX_PATH_BYTES}`;
  for (const part of path.split('/')) {
    const bytes = Buffer.byteLength(part, 'utf8');
    if (bytes > MAX_NAME_BYTES)
      return `the name "${part.slice(0, 24)}…" is ${bytes} bytes long; file systems take at most ${MAX_NAME_BYTES} bytes per name`;
  }
  return undefined;
}
