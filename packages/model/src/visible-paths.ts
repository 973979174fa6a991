import type { OverlayFileSystem } from '@cairn/agentfs';
import { walkTree } from '@cairn/agentfs';
import { fsPathExcluded } from '@cairn/air';

/** What the repo map reads of an agent's view: its files, and the paths it may not read. */
export interface MappedTree {
  fs: OverlayFileSystem;
  readExclude: readonly string[];
}

/** The most paths a repo map walks; a larger project is mapped from the first ones in path order. */
export const MAX_MAPPED_PATHS = 250_000;

/** The files and folders of a project an agent may see, in path order. */
export interface VisiblePaths {
  readonly files: readonly string[];
  readonly dirs: readonly string[];
  /** True when the walk stopped at `MAX_MAPPED_PATHS`. */
  cut: boolean;
}

/** One layer's directory entries, as an AgentFS store lists them: name, inode and mode, one query per directory. */
interface Layer {
  children(ino: number): { name: string; ino: number; mode: number }[];
  whiteoutsIn(path: string): string[];
  hasWhiteouts(): boolean;
  /** Changes whenever the layer's names may have changed. */
  namesVersion(): string;
}

/** The last listing of a base layer, kept while its names and the exclusions stay the same. */
interface BaseListing {
  key: string;
  paths: VisiblePaths;
}

/** Per base store: every agent's overlay of a project shares the project's stable.db. */
const baseListings = new WeakMap<Layer, BaseListing>();

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const ROOT_INO = 1;

/**
 * Walks the agent's view of the project, leaving out what its file grant keeps it from reading (as
 * `get_file_tree` does). The overlay's two layers are read a directory at a time (one query per layer and
 * directory, whiteouts applied as the overlay applies them), which is what makes a map of 50,000 files cheap;
 * a file system without them is walked entry by entry.
 */
export function listVisiblePaths(view: MappedTree, limit: number = MAX_MAPPED_PATHS): VisiblePaths {
  const layers = layersOf(view.fs);
  if (layers === undefined) return walkEntries(view, limit);
  if (!upperIsEmpty(layers.upper)) return walkLayers(layers, view.readExclude, limit);
  // a fresh overlay (every new agent's) shows its base as it is: its listing is kept until the base's names change
  const key = `${layers.base.namesVersion()}\0${limit}\0${view.readExclude.join('\0')}`;
  let listing = baseListings.get(layers.base);
  if (listing?.key !== key) {
    const paths = walkLayers({ upper: EMPTY_LAYER, base: layers.base }, view.readExclude, limit);
    listing = { key, paths: Object.freeze({ files: Object.freeze(paths.files), dirs: Object.freeze(paths.dirs), cut: paths.cut }) };
    baseListings.set(layers.base, listing);
  }
  // shared by every caller until the base changes (read-only: what is derived from it can be kept beside it)
  return listing.paths;
}

/** True when an overlay's upper layer holds no entry and hides nothing. */
function upperIsEmpty(upper: Layer): boolean {
  return upper.children(ROOT_INO).length === 0 && !upper.hasWhiteouts();
}

/** A layer with nothing in it. */
const EMPTY_LAYER: Layer = { children: () => [], whiteoutsIn: () => [], hasWhiteouts: () => false, namesVersion: () => '' };

function layersOf(fs: OverlayFileSystem): { upper: Layer; base: Layer } | undefined {
  const upper = (fs as { upper?: { inodes?: Partial<Layer> } }).upper?.inodes;
  const base = (fs as { base?: { inodes?: Partial<Layer> } }).base?.inodes;
  const usable = (layer: Partial<Layer> | undefined): layer is Layer =>
    typeof layer?.children === 'function' &&
    typeof layer.whiteoutsIn === 'function' &&
    typeof layer.hasWhiteouts === 'function' &&
    typeof layer.namesVersion === 'function';
  return usable(upper) && usable(base) ? { upper, base } : undefined;
}

/** A listing being made. */
interface Listing {
  files: string[];
  dirs: string[];
  cut: boolean;
}

function walkLayers(layers: { upper: Layer; base: Layer }, exclude: readonly string[], limit: number): Listing {
  const out: Listing = { files: [], dirs: [], cut: false };
  // a folder is walked only once it passed, so a name-only pattern needs testing on the last name alone
  const anchored = exclude.filter((p) => p.startsWith('/') || p.replace(/^\/+|\/+$/g, '').includes('/'));
  const named = exclude.filter((p) => !anchored.includes(p));
  const excluded = (name: string, path: string) =>
    (named.length > 0 && fsPathExcluded(name, named)) || (anchored.length > 0 && fsPathExcluded(path, anchored));
  const isDir = (mode: number) => (mode & S_IFMT) === S_IFDIR;
  const walk = (upperIno: number | undefined, baseIno: number | undefined, path: string): boolean => {
    const entries = new Map<string, { mode: number; upper?: number; base?: number }>();
    if (upperIno !== undefined)
      for (const child of layers.upper.children(upperIno)) entries.set(child.name, { mode: child.mode, upper: child.ino });
    if (baseIno !== undefined) {
      const hidden = upperIno === undefined ? undefined : new Set(layers.upper.whiteoutsIn(path === '' ? '/' : `/${path}`));
      for (const child of layers.base.children(baseIno)) {
        const above = entries.get(child.name);
        if (above === undefined) {
          if (hidden?.has(`/${path === '' ? '' : `${path}/`}${child.name}`)) continue;
          entries.set(child.name, { mode: child.mode, base: child.ino });
        } else if (isDir(above.mode) && isDir(child.mode)) above.base = child.ino;
      }
    }
    for (const name of [...entries.keys()].sort(compareNames)) {
      const entry = entries.get(name)!;
      const child = path === '' ? name : `${path}/${name}`;
      if (excluded(name, child)) continue;
      if (out.files.length + out.dirs.length >= limit) {
        out.cut = true;
        return false;
      }
      if (isDir(entry.mode)) {
        out.dirs.push(child);
        if (!walk(entry.upper, entry.base, child)) return false;
      } else out.files.push(child);
    }
    return true;
  };
  walk(ROOT_INO, ROOT_INO, '');
  return out;
}

function walkEntries(view: MappedTree, limit: number): Listing {
  const out: Listing = { files: [], dirs: [], cut: false };
  walkTree(
    view.fs,
    '',
    (path) => fsPathExcluded(path, view.readExclude),
    (entry) => {
      if (out.files.length + out.dirs.length >= limit) {
        out.cut = true;
        return false;
      }
      if (entry.kind === 'dir') out.dirs.push(entry.path);
      else out.files.push(entry.path);
      return true;
    },
  );
  return out;
}

/** Names in code-unit order (AgentFS's byte order for every name outside the astral planes). */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
