import type { TaskTerms } from './task-terms.js';
import type { VisiblePaths } from './visible-paths.js';

/** Bounds of the search through file contents that a repo map makes. */
export const CONTENT_SEARCH_LIMITS = { files: 1_000, bytes: 4 * 1024 * 1024, fileBytes: 256 * 1024, ms: 12 };

/** The files a task leads to, in the order a repo map shows them. */
export interface RankedFiles {
  /** Files the task names (by path, by the end of a path, or by bare file name). */
  named: string[];
  /** Folders the task names. */
  namedDirs: string[];
  /** Names in the task that match no file or folder. */
  missing: string[];
  /** Files the person edited lately (the caller's list, where they still exist). */
  recent: string[];
  /** Files whose path or content holds the task's words, best first, with what matched. */
  matched: { path: string; why: string[] }[];
  /** How far the content search went. */
  searched: { files: number; bytes: number; cut: boolean };
}

/** What ranking needs besides the paths: a file's text (undefined when unreadable, binary or not allowed). */
export interface RankSources {
  readText(path: string): string | undefined;
  recent?: readonly string[];
  /** Milliseconds now (a clock for the search's time bound). */
  now?: () => number;
}

const MAX_NAMED_MATCHES = 20;
const MAX_MATCHED = 30;
/** A word found in the paths of more files than this (and than the share below of all files) ranks none of them. */
const MAX_PATH_WORD_FILES = 200;
const COMMON_PATH_WORD_SHARE = 0.05;

/**
 * Ranks a project's files for a task: the files it names first, then the files edited lately, then files
 * whose path holds the task's words (a word in the paths of many files ranks none), then files whose content
 * holds its identifiers or longer words (a bounded search: files near the named ones first, then path order;
 * stopped by count, bytes and time).
 */
export function rankFiles(paths: VisiblePaths, terms: TaskTerms, sources: RankSources): RankedFiles {
  const named: string[] = [];
  const namedDirs: string[] = [];
  const missing: string[] = [];
  const dirs = new Set(paths.dirs);
  for (const token of terms.named.slice(0, 12)) {
    const dir = token.replace(/\/+$/, '');
    if (dirs.has(dir)) {
      namedDirs.push(dir);
      continue;
    }
    const found = findNamed(paths.files, token);
    if (found.length === 0) missing.push(token);
    for (const path of found) if (!named.includes(path)) named.push(path);
  }
  const files = new Set(paths.files);
  const taken = new Set(named);
  const recent: string[] = [];
  for (const path of sources.recent ?? []) {
    if (!files.has(path) || taken.has(path) || recent.length >= 20) continue;
    recent.push(path);
    taken.add(path);
  }
  const scores = new Map<string, { score: number; why: Set<string> }>();
  const note = (path: string, score: number, why: string) => {
    const entry = scores.get(path) ?? { score: 0, why: new Set<string>() };
    entry.score += score;
    entry.why.add(why);
    scores.set(path, entry);
  };
  const words = [...terms.words].sort((a, b) => b.length - a.length).slice(0, 6);
  const hits = words.map(() => [] as { path: string; score: number }[]);
  if (words.length > 0) {
    const lowered = lowerCased(paths.files);
    for (let i = 0; i < paths.files.length; i++) {
      const path = paths.files[i]!;
      if (taken.has(path)) continue;
      const lower = lowered[i]!;
      const cut = lower.lastIndexOf('/');
      for (let w = 0; w < words.length; w++) {
        const at = lower.indexOf(words[w]!);
        if (at >= 0) hits[w]!.push({ path, score: at > cut ? 3 : 1 });
      }
    }
  }
  // a word in the paths of many files (`src`, `test`, `file`) tells none of them apart: it ranks nothing
  const common = Math.max(MAX_PATH_WORD_FILES, Math.floor(paths.files.length * COMMON_PATH_WORD_SHARE));
  words.forEach((word, w) => {
    if (hits[w]!.length <= common) for (const hit of hits[w]!) note(hit.path, hit.score, `path: ${word}`);
  });
  const searched = searchContents(paths, terms, sources, taken, [...named, ...namedDirs.map((d) => `${d}/`)], note);
  const matched = [...scores.entries()]
    .sort((a, b) => b[1].score - a[1].score || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_MATCHED)
    .map(([path, entry]) => ({ path, why: [...entry.why].slice(0, 4) }));
  return { named, namedDirs, missing, recent, matched, searched };
}

/** The paths in lower case, kept beside a listing that is shared (the listing of a project's stable tree). */
const lowerCasedLists = new WeakMap<readonly string[], readonly string[]>();

function lowerCased(files: readonly string[]): readonly string[] {
  let lowered = lowerCasedLists.get(files);
  if (lowered === undefined) {
    lowered = files.map((path) => path.toLowerCase());
    lowerCasedLists.set(files, lowered);
  }
  return lowered;
}

/**
 * Files a named token stands for: the path itself, a path ending in it, or (for a bare name) files of that name;
 * when none is written exactly so, the same in any case (`InvoiceTotals.ts` for `invoiceTotals.ts`).
 */
function findNamed(files: readonly string[], token: string): string[] {
  const exact = filesEndingIn(files, token, (path) => path);
  return exact.length > 0 ? exact : filesEndingIn(lowerCased(files), token.toLowerCase(), (_, i) => files[i]!);
}

function filesEndingIn(files: readonly string[], token: string, original: (path: string, index: number) => string): string[] {
  const found: string[] = [];
  const suffix = `/${token}`;
  for (let i = 0; i < files.length && found.length < MAX_NAMED_MATCHES; i++) {
    const path = files[i]!;
    if (path === token || path.endsWith(suffix)) found.push(original(path, i));
  }
  return found;
}

function searchContents(
  paths: VisiblePaths,
  terms: TaskTerms,
  sources: RankSources,
  taken: ReadonlySet<string>,
  near: readonly string[],
  note: (path: string, score: number, why: string) => void,
): RankedFiles['searched'] {
  const exact = terms.identifiers.slice(0, 6);
  const loose = terms.words.filter((w) => w.length >= 5 && !exact.some((id) => id.toLowerCase() === w)).slice(0, 4);
  const searched = { files: 0, bytes: 0, cut: false };
  if (exact.length === 0 && loose.length === 0) return searched;
  const now = sources.now ?? Date.now;
  const started = now();
  const folders = near.map((p) => p.slice(0, p.lastIndexOf('/') + 1)).filter((f) => f !== '');
  const order = [
    ...paths.files.filter((p) => folders.some((f) => p.startsWith(f))),
    ...paths.files.filter((p) => !folders.some((f) => p.startsWith(f))),
  ];
  for (const path of order) {
    if (taken.has(path)) continue;
    if (
      searched.files >= CONTENT_SEARCH_LIMITS.files ||
      searched.bytes >= CONTENT_SEARCH_LIMITS.bytes ||
      now() - started > CONTENT_SEARCH_LIMITS.ms
    ) {
      searched.cut = true;
      break;
    }
    const text = sources.readText(path);
    if (text === undefined) continue;
    searched.files++;
    searched.bytes += text.length;
    for (const id of exact) if (text.includes(id)) note(path, 4, `content: ${id}`);
    if (loose.length > 0) {
      const lower = text.toLowerCase();
      for (const word of loose) if (lower.includes(word)) note(path, 1, `content: ${word}`);
    }
  }
  return searched;
}
