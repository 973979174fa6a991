import { outlineFolders } from './folder-outline.js';
import { CONTENT_SEARCH_LIMITS, type RankedFiles, rankFiles } from './rank-files.js';
import { canOutline, loadParser, outlineSymbols } from './symbol-outline.js';
import { readTaskTerms } from './task-terms.js';
import { CHARS_PER_TOKEN } from './token-budget.js';
import type { MappedTree } from './visible-paths.js';
import { listVisiblePaths } from './visible-paths.js';

/** What a repo map is made from. */
export interface RepoMapInput {
  view: MappedTree;
  task: string;
  /** Files the person edited lately, newest first. */
  recent?: readonly string[];
  /** False for a file the agent's policy keeps it from reading (its content is then neither searched nor outlined). */
  mayRead?: (path: string) => boolean;
  /** The tokens the map may take. */
  budgetTokens: number;
  now?: () => number;
}

/** What a repo map shows, for the journal: which files it put first, and how much of the project it could list. */
export interface RepoMapStats {
  files: number;
  named: string[];
  missing: string[];
  recent: number;
  matched: number;
  outlined: number;
  /** Folder depth to which the outline lists files; deeper folders are summarised. */
  depth: number;
  /** True when every file is listed by name. */
  complete: boolean;
  searched: RankedFiles['searched'];
}

/** A repo map: the text the prompt carries, and what it holds. */
export interface RepoMap {
  text: string;
  stats: RepoMapStats;
}

/** The share of the map's budget the files the task leads to may take before the folder outline. */
const LEADS_SHARE = 0.7;
const OUTLINE_LINES = { named: 24, recent: 12, matched: 8 };
const OUTLINED_MATCHES = 4;

/**
 * A map of the project for a task, within a token budget, as Aider's repo map does: the files the task names
 * (with an outline of their exported symbols), then the files the person edited lately, then files whose path
 * or content holds the task's words, then every file as a folder outline, summarised by folder where the
 * budget runs short. Outlines come from TypeScript's own parser (JavaScript and TypeScript files).
 */
export async function buildRepoMap(input: RepoMapInput): Promise<RepoMap> {
  const maxChars = Math.max(0, Math.floor(input.budgetTokens * CHARS_PER_TOKEN));
  const paths = listVisiblePaths(input.view);
  const terms = readTaskTerms(input.task);
  const readText = (path: string) => readSmallText(input.view, path, input.mayRead);
  const ranked = rankFiles(paths, terms, {
    readText,
    ...(input.recent === undefined ? {} : { recent: input.recent }),
    ...(input.now === undefined ? {} : { now: input.now }),
  });
  const outlined = new Set([
    ...ranked.named.slice(0, 10),
    ...ranked.recent.slice(0, 5),
    ...ranked.matched.slice(0, OUTLINED_MATCHES).map((m) => m.path),
  ]);
  const ts = [...outlined].some(canOutline) ? await loadParser() : undefined;
  const outline = (path: string, lines: number): string[] => {
    if (ts === undefined || !canOutline(path)) return [];
    const text = readText(path);
    if (text === undefined) return [];
    try {
      return outlineSymbols(ts, path, text, lines).map((line) => `    ${line}`);
    } catch {
      return [];
    }
  };
  const leads: string[] = [];
  const leadsBudget = Math.floor(maxChars * LEADS_SHARE);
  const size = () => leads.reduce((n, line) => n + line.length + 1, 0);
  const section = (title: string, entries: { path: string; note?: string; lines: number }[], always = false) => {
    if (entries.length === 0) return;
    const block = [title];
    for (const entry of entries) {
      const line = `- ${entry.path}${entry.note === undefined ? '' : ` (${entry.note})`}`;
      const symbols = outlined.has(entry.path) ? outline(entry.path, entry.lines) : [];
      const grown = size() + [...block, line, ...symbols].reduce((n, l) => n + l.length + 1, 0);
      if (grown <= leadsBudget) block.push(line, ...symbols);
      else if (always || size() + block.reduce((n, l) => n + l.length + 1, 0) + line.length + 1 <= leadsBudget) block.push(line);
    }
    if (block.length > 1) leads.push(...block, '');
  };
  section(
    'Files the task names:',
    ranked.named.map((path) => ({ path, lines: OUTLINE_LINES.named })),
    true,
  );
  if (ranked.namedDirs.length > 0) leads.push(`Folders the task names: ${ranked.namedDirs.map((d) => `${d}/`).join(', ')}`, '');
  if (ranked.missing.length > 0) leads.push(`The task names these, but the project has no such file: ${ranked.missing.join(', ')}`, '');
  section(
    'Files the person edited lately:',
    ranked.recent.map((path) => ({ path, lines: OUTLINE_LINES.recent })),
  );
  section(
    "Files whose path or content holds the task's words:",
    ranked.matched.map((m) => ({ path: m.path, note: m.why.join(', '), lines: OUTLINE_LINES.matched })),
  );
  const heading = `All ${paths.files.length} files${paths.cut ? ' (the first ones)' : ''}, by folder:`;
  const room = Math.max(0, maxChars - size() - heading.length - 1);
  const folders = outlineFolders(paths.files, room, [...ranked.named, ...ranked.recent, ...ranked.matched.map((m) => m.path)]);
  const text = [...leads, heading, folders.text].join('\n');
  return {
    text,
    stats: {
      files: paths.files.length,
      named: ranked.named,
      missing: ranked.missing,
      recent: ranked.recent.length,
      matched: ranked.matched.length,
      outlined: outlined.size,
      depth: folders.depth,
      complete: folders.complete,
      searched: ranked.searched,
    },
  };
}

/** A small text file's content as the agent may read it; undefined for a binary, large, unreadable or denied one. */
function readSmallText(view: MappedTree, path: string, mayRead: ((path: string) => boolean) | undefined): string | undefined {
  if (mayRead !== undefined && !mayRead(path)) return undefined;
  let bytes: Buffer;
  try {
    bytes = view.fs.readFile('/' + path);
  } catch {
    return undefined;
  }
  if (bytes.length > CONTENT_SEARCH_LIMITS.fileBytes) return undefined;
  const sniff = Math.min(bytes.length, 8000);
  for (let i = 0; i < sniff; i++) if (bytes[i] === 0) return undefined;
  return bytes.toString('utf8');
}
