import type { Triage } from './decision.js';
import { type Diagnostic, diagnose, relocate } from './diagnostic.js';
import { TriageError } from './errors.js';
import { type Actor, type BranchName, parseActor, parseBranchName } from './names.js';
import { fail, type Result, succeed } from './result.js';
import { parseTimestamp, type Timestamp } from './timestamp.js';
import { formatTriage, parseTriage } from './triage-text.js';

/** The `## Triage` section of a thread: who decided what, when. */
export interface TriageRecord {
  decision: Triage;
  actor: Actor;
  timestamp: Timestamp;
}

/** A proposal thread: a markdown file with a title, header fields, a body and maybe a triage section. */
export interface Thread {
  title: string;
  from: Actor;
  branch: BranchName;
  received: Timestamp;
  /** The content between the header and the triage section, without surrounding blank lines. */
  body: string;
  triage?: TriageRecord;
}

const TITLE = /^\s*#\s+(\S.*?)\s*$/;
const RULE = /^\s*---\s*$/;
const TRIAGE_HEADING = /^\s*#{2,6}\s+triage\s*:?\s*$/i;
const FIELD = /^(\s*(?:[-*]\s+)?(?:\*\*\s*)?)([A-Za-z]+)(\s*(?::\s*(?:\*\*)?|\*\*\s*:)\s*)(.*?)\s*$/;
const HEADER_FIELDS = ['from', 'branch', 'received'] as const;
const TRIAGE_FIELDS = ['decision', 'actor', 'timestamp'] as const;

/**
 * Parses a thread. CRLF and stray whitespace are tolerated; every problem is reported at once with its
 * line and column: a missing title or field, an unknown or repeated field, two triage sections, a
 * malformed decision, actor, branch or timestamp.
 */
export function parseThread(markdown: string): Result<Thread, Diagnostic[]> {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const problems: Diagnostic[] = [];
  let index = 0;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  const titleMatch = index < lines.length ? TITLE.exec(lines[index]!) : null;
  if (titleMatch === null || lines[index]!.trimStart().startsWith('##')) {
    return fail([diagnose('missing-title', 'a thread starts with a "# <title>" line', index + 1)]);
  }
  const title = titleMatch[1]!;
  index++;

  const header: Fields = new Map();
  for (; index < lines.length && !RULE.test(lines[index]!); index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    const match = FIELD.exec(line);
    if (match === null) {
      problems.push(
        diagnose('invalid-line', `expected a header field like "**From:** pi" or the "---" line, found "${line.trim()}"`, index + 1),
      );
      continue;
    }
    const name = match[2]!.toLowerCase();
    if (!(HEADER_FIELDS as readonly string[]).includes(name)) {
      problems.push(diagnose('unknown-field', `unknown header field "${match[2]}"; expected From, Branch and Received`, index + 1));
    } else if (header.has(name)) {
      problems.push(
        diagnose('duplicate-field', `header field "${match[2]}" appears twice (first on line ${header.get(name)!.line})`, index + 1),
      );
    } else header.set(name, { value: match[4]!, line: index + 1, column: match[1]!.length + match[2]!.length + match[3]!.length + 1 });
  }
  if (index >= lines.length)
    return fail([...problems, diagnose('missing-separator-line', 'the header must end with a "---" line', lines.length)]);
  const separatorLine = index + 1;
  index++;

  const missingHeader = (label: string) => diagnose('missing-field', `the header has no "**${label}:**" field`, separatorLine);
  const from = readField(header, 'from', parseActor, problems, missingHeader('From'));
  const branch = readField(header, 'branch', parseBranchName, problems, missingHeader('Branch'));
  const received = readField(header, 'received', parseTimestamp, problems, missingHeader('Received'));

  const headings = lines.map((line, i) => (i >= index && TRIAGE_HEADING.test(line) ? i : -1)).filter((i) => i >= 0);
  for (const extra of headings.slice(1)) {
    problems.push(
      diagnose(
        'duplicate-triage',
        `a second "## Triage" section (the first is on line ${headings[0]! + 1}); a thread has at most one`,
        extra + 1,
      ),
    );
  }
  const triageAt = headings[0];
  const body = extractBody(lines.slice(index, triageAt ?? lines.length));
  let triage: TriageRecord | undefined;
  if (triageAt !== undefined) triage = parseTriageSection(lines, triageAt, headings[1] ?? lines.length, problems);

  if (problems.length > 0 || from === undefined || branch === undefined || received === undefined) return fail(problems);
  const thread: Thread = { title, from, branch, received, body };
  if (triage !== undefined) thread.triage = triage;
  return succeed(thread);
}

type Fields = Map<string, { value: string; line: number; column: number }>;

/** Parses one named field, or records why it is missing or wrong (at the value's line and column). */
function readField<T>(
  fields: Fields,
  name: string,
  parse: (text: string) => Result<T, Diagnostic>,
  problems: Diagnostic[],
  missing: Diagnostic,
): T | undefined {
  const found = fields.get(name);
  if (found === undefined) {
    problems.push(missing);
    return undefined;
  }
  const parsed = parse(found.value);
  if (parsed.ok) return parsed.value;
  problems.push(relocate(parsed.error, found.line, found.column));
  return undefined;
}

/** The body: the lines between the header and the triage section, less one closing "---" line (written before a triage section, or ahead of one to come). */
function extractBody(lines: string[]): string {
  const trimmed = trimBlankLines(lines);
  if (trimmed.length > 0 && RULE.test(trimmed[trimmed.length - 1]!)) trimmed.pop();
  return trimBlankLines(trimmed).join('\n');
}

function trimBlankLines(lines: readonly string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start++;
  while (end > start && lines[end - 1]!.trim() === '') end--;
  return lines.slice(start, end);
}

function parseTriageSection(lines: readonly string[], heading: number, end: number, problems: Diagnostic[]): TriageRecord | undefined {
  const found: Fields = new Map();
  for (let i = heading + 1; i < end; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const match = FIELD.exec(line);
    const name = match?.[2]?.toLowerCase();
    if (match === null || name === undefined || !(TRIAGE_FIELDS as readonly string[]).includes(name)) {
      problems.push(
        diagnose('invalid-line', `expected "decision:", "actor:" or "timestamp:" in the triage section, found "${line.trim()}"`, i + 1),
      );
      continue;
    }
    if (found.has(name)) {
      problems.push(diagnose('duplicate-field', `triage field "${name}" appears twice (first on line ${found.get(name)!.line})`, i + 1));
      continue;
    }
    found.set(name, { value: match[4]!, line: i + 1, column: match[1]!.length + match[2]!.length + match[3]!.length + 1 });
  }
  const before = problems.length;
  const missing = (name: string) => diagnose('missing-field', `the triage section has no "${name}:" line`, heading + 1);
  const decision = readField(found, 'decision', parseTriage, problems, missing('decision'));
  const actor = readField(found, 'actor', parseActor, problems, missing('actor'));
  const timestamp = readField(found, 'timestamp', parseTimestamp, problems, missing('timestamp'));
  if (problems.length > before || decision === undefined || actor === undefined || timestamp === undefined) return undefined;
  return { decision, actor, timestamp };
}

/**
 * Formats a thread as markdown (LF line ends, one trailing newline); `parseThread` reads it back to the same
 * value. Throws TRIAGE_INVALID_THREAD for a title that is not one line or a body holding a triage heading ("## Triage", or "###"… "######").
 */
export function formatThread(thread: Thread): string {
  if (thread.title.trim() !== thread.title || thread.title.length === 0 || /[\r\n]/.test(thread.title)) {
    throw new TriageError('TRIAGE_INVALID_THREAD', 'a thread title must be one non-empty line without surrounding whitespace');
  }
  const bodyLines = trimBlankLines(thread.body.replace(/\r\n?/g, '\n').split('\n'));
  if (bodyLines.some((line) => TRIAGE_HEADING.test(line))) {
    throw new TriageError(
      'TRIAGE_INVALID_THREAD',
      'a thread body cannot hold a "## Triage" line: it would read back as the triage section',
    );
  }
  const out = [
    `# ${thread.title}`,
    '',
    `**From:** ${thread.from}`,
    `**Branch:** ${thread.branch}`,
    `**Received:** ${thread.received}`,
    '',
    '---',
    '',
  ];
  if (bodyLines.length > 0) out.push(...bodyLines, '');
  const endsWithRule = bodyLines.length > 0 && RULE.test(bodyLines[bodyLines.length - 1]!);
  if (thread.triage === undefined && endsWithRule) out.push('---', '');
  if (thread.triage !== undefined) {
    out.push(
      '---',
      '',
      '## Triage',
      '',
      `decision: ${formatTriage(thread.triage.decision)}`,
      `actor: ${thread.triage.actor}`,
      `timestamp: ${thread.triage.timestamp}`,
      '',
    );
  }
  return out.join('\n');
}
