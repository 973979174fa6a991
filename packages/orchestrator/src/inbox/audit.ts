import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatAuditLog, parseAuditLog, type AuditEntry } from '@cairn/triage';
import { writeAtomically } from '../workspace/atomic-write.js';
import { unusableFolder } from './thread-file.js';

/** One line for the audit log, before it is placed in its day's file. */
export interface AuditLine {
  /** Milliseconds since the epoch; the day's file and the `HH:MM` are taken from it, in UTC. */
  at: number;
  source: string;
  /** `received`, or a decision's string form. */
  decision: string;
  executed: string;
}

/** `YYYY-MM-DD` of a time, in UTC (the audit log's days). */
export function auditDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The day's log file: `.cairn/logs/inbox/YYYYMMDD.md`. */
export function auditPath(dir: string, date: string): string {
  return join(dir, `${date.replace(/-/g, '')}.md`);
}

/**
 * Appends a line to its day's log in seed 002's table format. The file is rewritten whole (so it always
 * reads back with `parseAuditLog`); a file someone broke by hand is never rewritten: the row is appended
 * to it as it is. Callers hold the inbox lock.
 */
export function appendAudit(dir: string, line: AuditLine): void {
  mkdirSync(dir, { recursive: true });
  const date = auditDate(line.at);
  const path = auditPath(dir, date);
  const entry: AuditEntry = {
    time: new Date(line.at).toISOString().slice(11, 16),
    source: cell(line.source),
    decision: cell(line.decision),
    executed: cell(line.executed),
  };
  if (!existsSync(path)) {
    writeAtomically(path, formatAuditLog({ date, entries: [entry] }), { durable: true });
    return;
  }
  const parsed = parseAuditLog(readFileSync(path, 'utf8'));
  if (parsed.ok) {
    writeAtomically(path, formatAuditLog({ date: parsed.value.date, entries: [...parsed.value.entries, entry] }), { durable: true });
    return;
  }
  const row = formatAuditLog({ date, entries: [entry] })
    .trimEnd()
    .split('\n')
    .pop()!;
  const text = readFileSync(path, 'utf8');
  appendFileSync(path, (text.endsWith('\n') ? '' : '\n') + row + '\n');
}

/** A cell's text on one line, never empty. */
function cell(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line === '' ? '—' : line.slice(0, 300);
}

/** The day's log as text, or undefined when nothing was logged that day. */
export function readAudit(dir: string, date: string): string | undefined {
  try {
    return readFileSync(auditPath(dir, date), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unusableFolder(dir, error);
  }
}
