import { type Diagnostic, diagnose, relocate } from './diagnostic.js';
import { TriageError } from './errors.js';
import { fail, type Result, succeed } from './result.js';
import { parseTriage } from './triage-text.js';

/** One row of the daily log. */
export interface AuditEntry {
  /** `HH:MM`. */
  time: string;
  /** The thread, e.g. `pi/proposal`. */
  source: string;
  /** `received`, or a decision in its string form. */
  decision: string;
  /** What was done: `✓ merged`, `✗ denied: …`, or `—`. */
  executed: string;
}

/** The log of one day, `logs/inbox/YYYYMMDD.md`. */
export interface AuditLog {
  /** `YYYY-MM-DD`. */
  date: string;
  entries: AuditEntry[];
}

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const COLUMNS = ['Time', 'Source', 'Decision', 'Executed'] as const;

/** Formats a day's log; the same log always gives the same bytes. Cells escape `|` and `\`; a Decision is `received` or a decision's string form. */
export function formatAuditLog(log: AuditLog): string {
  if (!DATE.test(log.date)) throw new TriageError('TRIAGE_INVALID_LOG', `log date '${log.date}' is not YYYY-MM-DD`);
  const rows = log.entries.map((entry, i) => {
    if (!TIME.test(entry.time)) throw new TriageError('TRIAGE_INVALID_LOG', `entry ${i + 1}: time '${entry.time}' is not HH:MM`);
    const cells = [entry.time, entry.source, entry.decision, entry.executed].map((cell, c) => {
      if (cell.length === 0 || cell.trim() !== cell || /[\r\n]/.test(cell)) {
        throw new TriageError(
          'TRIAGE_INVALID_LOG',
          `entry ${i + 1}: ${COLUMNS[c]} must be one non-empty line without surrounding whitespace`,
        );
      }
      return cell.replace(/[\\|]/g, (ch) => '\\' + ch);
    });
    const decision = entry.decision === 'received' ? undefined : parseTriage(entry.decision);
    if (decision !== undefined && !decision.ok) {
      throw new TriageError('TRIAGE_INVALID_LOG', `entry ${i + 1}: Decision must be "received" or a decision: ${decision.error.message}`);
    }
    return `| ${cells.join(' | ')} |`;
  });
  return [`# Inbox Log: ${log.date}`, '', `| ${COLUMNS.join(' | ')} |`, '|------|--------|----------|----------|', ...rows, ''].join('\n');
}

/**
 * Parses a day's log back; tolerates CRLF, blank lines, cell padding, alignment colons and rows without their
 * outer pipes; reports every bad line, including a Decision that is neither `received` nor a decision.
 */
export function parseAuditLog(text: string): Result<AuditLog, Diagnostic[]> {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const problems: Diagnostic[] = [];
  let index = 0;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  const title = /^\s*#\s+Inbox Log:\s*(\S+)\s*$/.exec(lines[index] ?? '');
  if (title === null)
    return fail([diagnose('missing-title', 'a log starts with "# Inbox Log: YYYY-MM-DD"', Math.min(index + 1, lines.length))]);
  const date = title[1]!;
  if (!DATE.test(date))
    problems.push(diagnose('invalid-date', `log date '${date}' is not YYYY-MM-DD`, index + 1, lines[index]!.indexOf(date) + 1));
  index++;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  const header = splitRow(lines[index] ?? '')?.cells;
  if (header === undefined || header.length !== 4 || header.some((cell, i) => cell.toLowerCase() !== COLUMNS[i]!.toLowerCase())) {
    return fail([...problems, diagnose('invalid-line', `expected the header row "| ${COLUMNS.join(' | ')} |"`, index + 1)]);
  }
  index++;
  const separator = splitRow(lines[index] ?? '')?.cells;
  if (separator === undefined || separator.length !== 4 || !separator.every((cell) => /^:?-+:?$/.test(cell))) {
    return fail([...problems, diagnose('invalid-line', 'expected the separator row "|------|--------|----------|----------|"', index + 1)]);
  }
  const entries: AuditEntry[] = [];
  for (index++; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    const row = splitRow(line);
    if (row === undefined || row.cells.length !== 4) {
      problems.push(
        diagnose('invalid-line', `expected a row of 4 cells "| time | source | decision | executed |", found "${line.trim()}"`, index + 1),
      );
      continue;
    }
    const [time, source, decision, executed] = row.cells as [string, string, string, string];
    if (!TIME.test(time)) problems.push(diagnose('invalid-line', `time '${time}' is not HH:MM`, index + 1, row.columns[0]));
    else if ([source, decision, executed].some((cell) => cell.length === 0))
      problems.push(diagnose('invalid-line', 'a row has an empty cell', index + 1));
    else {
      const parsed = decision === 'received' ? undefined : parseTriage(decision);
      if (parsed !== undefined && !parsed.ok) problems.push(relocate(parsed.error, index + 1, row.columns[2]!));
      else entries.push({ time, source, decision, executed });
    }
  }
  return problems.length > 0 ? fail(problems) : succeed({ date, entries });
}

/** A row's cells, unescaped and trimmed, with the 1-based column where each cell's text starts. */
interface Row {
  cells: string[];
  columns: number[];
}

/**
 * The cells of a `| a | b |` row (the outer pipes may be left out, as GitHub's tables allow); undefined if
 * the line holds no unescaped pipe.
 */
function splitRow(line: string): Row | undefined {
  const lead = line.length - line.trimStart().length;
  const trimmed = line.trim();
  const row: Row = { cells: [], columns: [] };
  let current = '';
  let startsAt = -1;
  let pipes = 0;
  const push = (at: number) => {
    row.cells.push(current.trim());
    row.columns.push(lead + (startsAt < 0 ? at : startsAt) + 1);
    current = '';
    startsAt = -1;
  };
  for (let i = trimmed.startsWith('|') ? 1 : 0; i < trimmed.length; i++) {
    const ch = trimmed[i]!;
    if (ch === '|') {
      pipes++;
      push(i);
      continue;
    }
    if (startsAt < 0 && ch.trim() !== '') startsAt = i;
    if (ch === '\\' && i + 1 < trimmed.length && (trimmed[i + 1] === '|' || trimmed[i + 1] === '\\')) current += trimmed[++i];
    else current += ch;
  }
  if (pipes === 0 && !trimmed.startsWith('|')) return undefined;
  if (current.trim() !== '' || !trimmed.endsWith('|')) push(trimmed.length);
  return row;
}
