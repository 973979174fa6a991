import { diagnose, type Diagnostic } from './diagnostic.js';
import { TriageError } from './errors.js';
import { fail, succeed, type Result } from './result.js';

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

/** Formats a day's log; the same log always gives the same bytes. Cells escape `|` and `\`. */
export function formatAuditLog(log: AuditLog): string {
  if (!DATE.test(log.date)) throw new TriageError('TRIAGE_INVALID_LOG', `log date '${log.date}' is not YYYY-MM-DD`);
  const rows = log.entries.map((entry, i) => {
    if (!TIME.test(entry.time)) throw new TriageError('TRIAGE_INVALID_LOG', `entry ${i + 1}: time '${entry.time}' is not HH:MM`);
    const cells = [entry.time, entry.source, entry.decision, entry.executed].map((cell, c) => {
      if (cell.length === 0 || cell.trim() !== cell || /[\r\n]/.test(cell)) {
        throw new TriageError('TRIAGE_INVALID_LOG', `entry ${i + 1}: ${COLUMNS[c]} must be one non-empty line without surrounding whitespace`);
      }
      return cell.replace(/[\\|]/g, (ch) => '\\' + ch);
    });
    return `| ${cells.join(' | ')} |`;
  });
  return [`# Inbox Log: ${log.date}`, '', `| ${COLUMNS.join(' | ')} |`, '|------|--------|----------|----------|', ...rows, ''].join('\n');
}

/** Parses a day's log back; tolerates CRLF, blank lines and cell padding, reports every bad line. */
export function parseAuditLog(text: string): Result<AuditLog, Diagnostic[]> {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const problems: Diagnostic[] = [];
  let index = 0;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  const title = /^\s*#\s+Inbox Log:\s*(\S+)\s*$/.exec(lines[index] ?? '');
  if (title === null) return fail([diagnose('missing-title', 'a log starts with "# Inbox Log: YYYY-MM-DD"', index + 1)]);
  const date = title[1]!;
  if (!DATE.test(date)) problems.push(diagnose('invalid-date', `log date '${date}' is not YYYY-MM-DD`, index + 1, lines[index]!.indexOf(date) + 1));
  index++;
  while (index < lines.length && lines[index]!.trim() === '') index++;
  const header = splitRow(lines[index] ?? '');
  if (header === undefined || header.length !== 4 || header.some((cell, i) => cell.toLowerCase() !== COLUMNS[i]!.toLowerCase())) {
    return fail([...problems, diagnose('invalid-line', `expected the header row "| ${COLUMNS.join(' | ')} |"`, index + 1)]);
  }
  index++;
  if (!/^\s*\|(\s*:?-+:?\s*\|){4}\s*$/.test(lines[index] ?? '')) {
    return fail([...problems, diagnose('invalid-line', 'expected the separator row "|------|--------|----------|----------|"', index + 1)]);
  }
  const entries: AuditEntry[] = [];
  for (index++; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    const cells = splitRow(line);
    if (cells === undefined || cells.length !== 4) {
      problems.push(diagnose('invalid-line', `expected a row of 4 cells "| time | source | decision | executed |", found "${line.trim()}"`, index + 1));
      continue;
    }
    const [time, source, decision, executed] = cells as [string, string, string, string];
    if (!TIME.test(time)) problems.push(diagnose('invalid-line', `time '${time}' is not HH:MM`, index + 1, line.indexOf(time) + 1));
    else if ([source, decision, executed].some((cell) => cell.length === 0)) problems.push(diagnose('invalid-line', 'a row has an empty cell', index + 1));
    else entries.push({ time, source, decision, executed });
  }
  return problems.length > 0 ? fail(problems) : succeed({ date, entries });
}

/** The cells of a `| a | b |` row, unescaped and trimmed; undefined if the line is not a row. */
function splitRow(line: string): string[] | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('|') || !trimmed.endsWith('|') || trimmed.length < 2) return undefined;
  const cells: string[] = [];
  let current = '';
  for (let i = 1; i < trimmed.length; i++) {
    const ch = trimmed[i]!;
    if (ch === '\\' && i + 1 < trimmed.length && (trimmed[i + 1] === '|' || trimmed[i + 1] === '\\')) {
      current += trimmed[++i];
    } else if (ch === '|') {
      cells.push(current.trim());
      current = '';
    } else current += ch;
  }
  return current.trim() === '' ? cells : undefined;
}
