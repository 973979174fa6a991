import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomically } from '@cairn/api';
import { type AuditEntry, formatAuditLog } from '@cairn/triage';
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
 * Appends a line to its day's log in seed 002's table format: the day's first line writes the file whole
 * (title and table head); every later one appends its row, so a busy day costs one short append a line, never
 * a rewrite of the day. A file someone broke by hand is never rewritten either: the row goes at its end.
 * Callers hold the inbox lock.
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
  const whole = formatAuditLog({ date, entries: [entry] });
  if (!existsSync(path)) {
    writeAtomically(path, whole, { durable: true });
    return;
  }
  const row = whole.trimEnd().split('\n').pop()!;
  appendFileSync(path, (endsWithNewline(path) ? '' : '\n') + row + '\n');
}

/** Whether a file's last byte is a newline (an empty file counts as one). */
function endsWithNewline(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
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
