import { type Diagnostic, diagnose } from './diagnostic.js';
import { fail, type Result, succeed } from './result.js';

declare const brand: unique symbol;

/** An ISO 8601 date-time with minutes at least and a zone (`T`, `t` or, as RFC 3339 allows, a space between date and time): `2026-02-05T14:00Z`, `2026-02-05T14:00:30.5+01:00`. */
export type Timestamp = string & { readonly [brand]: 'Timestamp' };

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** Checks and brands a timestamp (calendar fields in range; leap days checked). */
export function parseTimestamp(text: string): Result<Timestamp, Diagnostic> {
  const match = PATTERN.exec(text);
  const bad = (why: string) => fail(diagnose('invalid-timestamp', `timestamp '${text}' ${why}; expected a form like 2026-02-05T14:00Z`));
  if (match === null) return bad('is not an ISO 8601 date-time with a zone');
  const [year, month, day, hour, minute, second, zoneHour, zoneMinute] = match
    .slice(1)
    .map((part) => (part === undefined ? 0 : Number(part)));
  if (month! < 1 || month! > 12) return bad('has no such month');
  if (day! < 1 || day! > daysIn(year!, month!)) return bad('has no such day');
  if (hour! > 23 || minute! > 59 || second! > 60) return bad('has no such time of day');
  if (zoneHour! > 23 || zoneMinute! > 59) return bad('has an impossible zone offset');
  return succeed(text as Timestamp);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The `HH:MM` of a timestamp as written (its own zone), for the audit log. */
export function timeOfDay(timestamp: Timestamp): string {
  return timestamp.slice(11, 16);
}

/** The `YYYY-MM-DD` of a timestamp as written. */
export function dateOf(timestamp: Timestamp): string {
  return timestamp.slice(0, 10);
}
