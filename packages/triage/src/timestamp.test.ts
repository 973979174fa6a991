import { describe, expect, it } from 'vitest';
import { dateOf, parseTimestamp, type Timestamp, timeOfDay } from './timestamp.js';

describe('timestamps', () => {
  it.each([
    '2026-02-05T14:00Z',
    '2026-02-05t14:00z',
    '2026-02-05 14:00Z',
    '2026-02-05T14:00:30Z',
    '2026-02-05T14:00:30.123456789+01:00',
    '2026-02-05T23:59:60-12:00',
    '2024-02-29T00:00Z',
    '2000-02-29T00:00Z',
  ])('accepts %s as written', (text) => {
    expect(parseTimestamp(text)).toEqual({ ok: true, value: text });
  });

  it.each([
    ['', 'is not an ISO 8601 date-time with a zone'],
    ['2026-02-05T14:00', 'is not an ISO 8601 date-time with a zone'],
    ['2026-02-05', 'is not an ISO 8601 date-time with a zone'],
    ['2026-2-5T14:00Z', 'is not an ISO 8601 date-time with a zone'],
    ['2026-02-05T14Z', 'is not an ISO 8601 date-time with a zone'],
    ['2026-02-05T14:00+0100', 'is not an ISO 8601 date-time with a zone'],
    [' 2026-02-05T14:00Z', 'is not an ISO 8601 date-time with a zone'],
    ['2026-13-05T14:00Z', 'has no such month'],
    ['2026-02-29T14:00Z', 'has no such day'],
    ['1900-02-29T14:00Z', 'has no such day'],
    ['2026-04-31T14:00Z', 'has no such day'],
    ['2026-02-05T24:00Z', 'has no such time of day'],
    ['2026-02-05T14:60Z', 'has no such time of day'],
    ['2026-02-05T14:00+24:00', 'has an impossible zone offset'],
  ])('refuses %j: it %s', (text, why) => {
    expect(parseTimestamp(text)).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'invalid-timestamp',
        message: `timestamp '${text}' ${why}; expected a form like 2026-02-05T14:00Z`,
      }),
    });
  });

  it('gives the date and time of day as written, in the timestamp’s own zone', () => {
    const t = '2026-02-05 23:30:00-05:00' as Timestamp;
    expect(dateOf(t)).toBe('2026-02-05');
    expect(timeOfDay(t)).toBe('23:30');
  });
});
