/** A folder of the outline: its folders and files, and how many files lie anywhere below it. */
interface Folder {
  name: string;
  folders: Map<string, Folder>;
  files: string[];
  total: number;
  /** `folders` by name and `files` sorted, once the tree is whole (an outline renders it several times). */
  sortedFolders?: Folder[];
  sortedFiles?: string[];
}

/** Trees already built, kept beside a listing that is shared (the listing of a project's stable tree). */
const trees = new WeakMap<readonly string[], Folder>();

/** The most files of one folder an outline lists by name; more are counted. */
const MAX_LISTED_FILES = 40;

/**
 * The project as an indented outline that fits `maxChars`: every file when it fits, else folders summarised
 * by their file count (`feature042/ — 80 files`) from the deepest level up until it fits; the room left opens
 * the folders holding the `near` paths (the files the task leads to) first, then others in path order. Files
 * of a folder with many of them are counted rather than listed.
 */
export function outlineFolders(
  files: readonly string[],
  maxChars: number,
  near: readonly string[] = [],
): { text: string; depth: number; complete: boolean } {
  let root = trees.get(files);
  if (root === undefined) {
    root = buildTree(files);
    trees.set(files, root);
  }
  const deepest = depthOf(root);
  for (let depth = deepest; depth >= 0; depth--) {
    const lines: string[] = [];
    const size = { chars: 0 };
    const complete = render(root, 0, depth, new Set(), lines, size, maxChars);
    if (complete === undefined) continue;
    if (depth === deepest) return { text: lines.join('\n'), depth, complete };
    // the room left opens summarised folders one level, those on the way to the task's files first, as far as it goes
    const expanded = new Set<Folder>();
    let room = maxChars - size.chars;
    const leads = (entry: { path: string }) => near.some((path) => path.startsWith(entry.path));
    const level = foldersAt(root, depth, '');
    for (const { folder } of [...level.filter(leads), ...level.filter((entry) => !leads(entry))]) {
      const cost = contentChars(folder, depth + 1);
      if (cost > room) continue;
      expanded.add(folder);
      room -= cost;
    }
    const final: string[] = [];
    render(root, 0, depth, expanded, final, { chars: 0 }, Number.MAX_SAFE_INTEGER);
    return { text: final.join('\n'), depth, complete: false };
  }
  const line = `./ — ${root.total} files`;
  return { text: line.slice(0, Math.max(0, maxChars)), depth: 0, complete: false };
}

/** The folders at `level` (the root is level 0's parent) with their paths (`src/feature/`), in the order an outline shows them. */
function foldersAt(folder: Folder, level: number, prefix: string): { folder: Folder; path: string }[] {
  const children = sorted(folder).map((child) => ({ folder: child, path: `${prefix}${child.name}/` }));
  return level === 0 ? children : children.flatMap((child) => foldersAt(child.folder, level - 1, child.path));
}

/** The characters a folder's content takes when listed one level deep at `level`. */
function contentChars(folder: Folder, level: number): number {
  const lines: string[] = [];
  const size = { chars: 0 };
  render(folder, level, level, new Set(), lines, size, Number.MAX_SAFE_INTEGER);
  return size.chars;
}

function sorted(folder: Folder): Folder[] {
  folder.sortedFolders ??= [...folder.folders.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return folder.sortedFolders;
}

function buildTree(files: readonly string[]): Folder {
  const root: Folder = { name: '', folders: new Map(), files: [], total: 0 };
  for (const path of files) {
    const parts = path.split('/');
    let at = root;
    at.total++;
    for (let i = 0; i < parts.length - 1; i++) {
      let next = at.folders.get(parts[i]!);
      if (next === undefined) {
        next = { name: parts[i]!, folders: new Map(), files: [], total: 0 };
        at.folders.set(parts[i]!, next);
      }
      next.total++;
      at = next;
    }
    at.files.push(parts[parts.length - 1]!);
  }
  return root;
}

function depthOf(folder: Folder): number {
  let deepest = 0;
  for (const child of folder.folders.values()) deepest = Math.max(deepest, 1 + depthOf(child));
  return deepest;
}

/**
 * Renders `folder`'s content at `level`: folders above `depth` (and those in `expanded`) are opened, deeper ones
 * summarised. Undefined as soon as it runs over `maxChars`, else whether every file was listed.
 */
function render(
  folder: Folder,
  level: number,
  depth: number,
  expanded: ReadonlySet<Folder>,
  lines: string[],
  size: { chars: number },
  maxChars: number,
): boolean | undefined {
  const indent = '  '.repeat(level);
  let complete = true;
  const add = (line: string): boolean => {
    size.chars += line.length + 1;
    lines.push(line);
    return size.chars <= maxChars;
  };
  for (const child of sorted(folder)) {
    if (level < depth || expanded.has(child)) {
      if (!add(`${indent}${child.name}/`)) return undefined;
      const inner = render(child, level + 1, level < depth ? depth : level + 1, expanded, lines, size, maxChars);
      if (inner === undefined) return undefined;
      complete &&= inner;
    } else {
      complete = false;
      if (!add(`${indent}${child.name}/ — ${child.total} file${child.total === 1 ? '' : 's'}`)) return undefined;
    }
  }
  folder.sortedFiles ??= [...folder.files].sort();
  const names = folder.sortedFiles;
  if (names.length > MAX_LISTED_FILES) {
    complete = false;
    for (const name of names.slice(0, MAX_LISTED_FILES / 2)) if (!add(`${indent}${name}`)) return undefined;
    if (!add(`${indent}… and ${names.length - MAX_LISTED_FILES / 2} more files here`)) return undefined;
  } else for (const name of names) if (!add(`${indent}${name}`)) return undefined;
  return complete;
}
