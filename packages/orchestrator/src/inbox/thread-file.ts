import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { ChangeInfo, CheckResultInfo } from '@cairn/api';
import { CairnError, describeCheckStatus, oneLine } from '@cairn/api';
import { formatTriage, parseActor, parseBranchName, parseTimestamp, type Triage } from '@cairn/triage';

/** Lines of a proposal's diff written into its thread; the rest is left to `cairn diff`. */
const MAX_DIFF_LINES = 400;
const TRIAGE_LINE = /^\s*#{2,6}\s+triage\s*:?\s*$/i;
const RULE = /^\s*---\s*$/;

/** What a thread is written from. */
export interface ThreadSource {
  agentId: string;
  task: string;
  summary?: string;
  changes: readonly ChangeInfo[];
  diff: string;
  /** The person who owns the proposal (the branch's prefix). */
  owner: string;
  /** A line said before the task: why this thread was written (a delegation, a revision). */
  note?: string;
  /** The project's checks on the proposal, when it has any. */
  checks?: readonly CheckResultInfo[];
}

/** `a7f3/add-docstrings-to-util`: the agent and a slug of its task (the thread's title and the log's Source). */
export function threadTitle(agentId: string, task: string): string {
  return `${agentId}/${topicOf(task)}`;
}

/** A slug of the task's first words, at most 40 characters (`proposal` when nothing is left). */
export function topicOf(task: string): string {
  const words = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
    .slice(0, 6);
  let slug = '';
  for (const word of words) {
    const next = slug === '' ? word : `${slug}-${word}`;
    if (next.length > 40) break;
    slug = next;
  }
  return slug === '' ? (words[0]?.slice(0, 40) ?? 'proposal') || 'proposal' : slug;
}

/** `YYYYMMDD-<agent>-<topic>.md`, with `-2`, `-3`… when the name is taken in the inbox or in `done/`. */
export function threadFileName(date: Date, agentId: string, task: string, taken: (name: string) => boolean): string {
  const day = date.toISOString().slice(0, 10).replace(/-/g, '');
  const stem = `${day}-${agentId}-${topicOf(task)}`;
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${stem}.md` : `${stem}-${n}.md`;
    if (!taken(name)) return name;
  }
}

/** The agent a thread file is about, from its name (`YYYYMMDD-<agent>-…`). */
export function agentOfThreadName(name: string): string | undefined {
  return /^\d{8}-([0-9a-z]+)-/.exec(name)?.[1];
}

/** A timestamp as threads write it: ISO 8601 in UTC to the second (`2026-11-23T10:15:30Z`). */
export function threadTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The thread's markdown, in seed 002's format: title, From, Branch, Received, `---`, then the proposal. */
export function composeThread(source: ThreadSource, received: number): string {
  const from = parseActor(source.agentId);
  const branch = parseBranchName(`${source.owner}/${source.agentId}`);
  const stamp = parseTimestamp(threadTimestamp(received));
  if (!from.ok || !branch.ok || !stamp.ok) throw new Error(`cannot name the thread of agent ${source.agentId}`);
  const lines = [`# ${threadTitle(source.agentId, source.task)}`, '', `**From:** ${from.value}`, `**Branch:** ${branch.value}`];
  lines.push(`**Received:** ${stamp.value}`, '', '---', '');
  if (source.note !== undefined) lines.push(`> ${oneLine(source.note)}`, '');
  lines.push('## Task', '', ...safe(source.task.split('\n')), '');
  lines.push('## Summary', '', ...safe((source.summary ?? '(no summary)').split('\n')), '');
  lines.push('## Changes', '');
  for (const change of source.changes) lines.push(`- ${change.status} \`${change.path}\``);
  if (source.changes.length === 0) lines.push('(none)');
  lines.push('');
  if (source.checks !== undefined && source.checks.length > 0) lines.push(...checksSection(source.checks));
  const diffLines = source.diff.replace(/\n$/, '').split('\n');
  lines.push('## Diff', '', '```diff', ...safe(diffLines.slice(0, MAX_DIFF_LINES)), '```');
  if (diffLines.length > MAX_DIFF_LINES)
    lines.push('', `(${diffLines.length - MAX_DIFF_LINES} more lines: \`cairn diff ${source.agentId}\`)`);
  lines.push(
    '',
    '<!--',
    `Decide by adding a Triage section at the end of this file: a line "---", then a heading "Triage" (two #),`,
    `then three lines "decision: …", "actor: <you>", "timestamp: ${stamp.value}". Decisions: do:merge,`,
    'delete:<reason>, defer:<reason>, delegate:<actor>, do:reply:<branch> (feedback under a "Feedback" heading),',
    `do:custom:<description>. Then run \`cairn inbox process\` (a running daemon does it on save).`,
    '-->',
    '',
  );
  return lines.join('\n');
}

/** Lines that would read back as a triage heading or as the header's rule are escaped, so a thread parses whatever the proposal holds. */
function safe(lines: readonly string[]): string[] {
  return lines.map((line) => (TRIAGE_LINE.test(line) || RULE.test(line) ? `\\${line}` : line));
}

/**
 * The thread with its triage section replaced by `decision` (the rest kept as the person wrote it): what
 * `cairn accept`/`reject` and reviewer agents write.
 */
export function withTriage(text: string, decision: Triage, actor: string, timestamp: string, note?: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const at = lines.findIndex((line, i) => i > 0 && TRIAGE_LINE.test(line));
  let kept = at < 0 ? lines : lines.slice(0, at);
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept = kept.slice(0, -1);
  if (kept.length > 0 && RULE.test(kept[kept.length - 1]!)) kept = kept.slice(0, -1);
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept = kept.slice(0, -1);
  const out = [...kept, ''];
  if (note !== undefined && note.trim() !== '') out.push(`## Review by ${actor}`, '', ...safe(note.trim().split('\n')), '');
  out.push('---', '', '## Triage', '', `decision: ${formatTriage(decision)}`, `actor: ${actor}`, `timestamp: ${timestamp}`, '');
  return out.join('\n');
}

/**
 * The feedback a `do:reply` sends the agent: the thread's "Feedback" section, else the last "Review by"
 * note, else a plain request to revise.
 */
export function feedbackOf(body: string, fallback: string): string {
  const lines = body.split('\n');
  const section = (heading: RegExp): string | undefined => {
    let found: string | undefined;
    for (let i = 0; i < lines.length; i++) {
      if (!heading.test(lines[i]!)) continue;
      const collected: string[] = [];
      for (let j = i + 1; j < lines.length && !/^\s*#{1,6}\s/.test(lines[j]!) && !RULE.test(lines[j]!); j++) collected.push(lines[j]!);
      const text = collected.join('\n').trim();
      if (text !== '') found = text;
    }
    return found;
  };
  return section(/^\s*#{2,6}\s+feedback\s*:?\s*$/i) ?? section(/^\s*#{2,6}\s+review by\s/i) ?? fallback;
}

/**
 * The thread file of agent `agentId` in a folder, if there is one (the first by name): the folder's names are read
 * as text, and only the match is looked at, so a full inbox costs a listing, not an object per thread.
 */
export function threadNameOf(dir: string, agentId: string): string | undefined {
  const infix = `-${agentId}-`;
  const found = entriesOf(dir, (path) => readdirSync(path))
    .filter((name) => name.includes(infix) && name.endsWith('.md') && !name.startsWith('.') && agentOfThreadName(name) === agentId)
    .sort();
  return found.find((name) => lstatSync(join(dir, name), { throwIfNoEntry: false })?.isFile() === true);
}

/** Thread files in a folder (`*.md`, not hidden), by name. */
export function threadNames(dir: string): string[] {
  return entriesOf(dir, (path) => readdirSync(path, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md') && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
}

/** A folder's entries as `list` reads them: none when the folder does not exist; one Cairn cannot read is said. */
function entriesOf<T>(dir: string, list: (path: string) => T[]): T[] {
  try {
    return list(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw unusableFolder(dir, error);
  }
}

/** The inbox's folders must be folders Cairn can read: anything else is said, never taken for an empty inbox. */
export function unusableFolder(dir: string, error: unknown): CairnError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === 'ENOTDIR' ? 'a file is in the way' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String(code);
  return new CairnError('CAIRN_PROJECT', `${dir} is not a folder Cairn can use (${why})`, {
    hint: 'move what is in the way aside; Cairn keeps review threads and their log under .cairn/',
    cause: error,
  });
}

/** Moves a thread to `done/` (as `-2`, `-3`… when the name is taken there); returns its new name. */
export function moveToDone(inboxDir: string, doneDir: string, name: string): string {
  mkdirSync(doneDir, { recursive: true });
  let target = name;
  for (let n = 2; existsSync(join(doneDir, target)); n++) target = name.replace(/\.md$/, `-${n}.md`);
  renameSync(join(inboxDir, name), join(doneDir, target));
  return target;
}

/** The thread's text, or undefined when it is gone (processed by someone else meanwhile). */
export function readThread(dir: string, name: string): string | undefined {
  try {
    return readFileSync(join(dir, name), 'utf8');
  } catch {
    return undefined;
  }
}

/** The `## Checks` section of a thread: one line per check, ✓ or ✗ (… while running). */
export function checksSection(checks: readonly CheckResultInfo[]): string[] {
  const mark = (status: CheckResultInfo['status']) => (status === 'passed' ? '✓' : status === 'pending' || status === 'stale' ? '…' : '✗');
  const lines = checks.map((check) => {
    const took = check.durationMs === undefined || check.status === 'pending' ? '' : ` (${(check.durationMs / 1000).toFixed(1)} s)`;
    return `- ${mark(check.status)} \`${check.name}\` ${oneLine(describeCheckStatus(check))}${took}`;
  });
  return ['## Checks', '', ...lines, ''];
}

/**
 * A thread with its `## Checks` section replaced (or added before `## Diff`), or undefined when the thread
 * already holds a decision (a decided thread is the person's, and is not rewritten).
 */
export function withChecksSection(text: string, checks: readonly CheckResultInfo[]): string | undefined {
  if (/^## Triage\s*$/m.test(text)) return undefined;
  const section = checksSection(checks).join('\n');
  const existing = /^## Checks\n[\s\S]*?(?=^## )/m;
  if (existing.test(text)) return text.replace(existing, `${section}\n`);
  const diff = text.search(/^## Diff\s*$/m);
  return diff < 0 ? undefined : `${text.slice(0, diff)}${section}\n${text.slice(diff)}`;
}
