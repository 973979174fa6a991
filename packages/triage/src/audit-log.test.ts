import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AuditLog, formatAuditLog, parseAuditLog } from './audit-log.js';
import { lineArb, triageArb } from './test-support/arbitraries.js';
import { formatTriage } from './triage-text.js';

const SEED_LOG = `# Inbox Log: 2026-02-05

| Time | Source | Decision | Executed |
|------|--------|----------|----------|
| 14:00 | pi/proposal | received | — |
| 15:00 | pi/proposal | do:merge | ✓ merged |
| 15:30 | omega/stale | delete:stale | ✓ deleted |
`;

const SEED_VALUE: AuditLog = {
  date: '2026-02-05',
  entries: [
    { time: '14:00', source: 'pi/proposal', decision: 'received', executed: '—' },
    { time: '15:00', source: 'pi/proposal', decision: 'do:merge', executed: '✓ merged' },
    { time: '15:30', source: 'omega/stale', decision: 'delete:stale', executed: '✓ deleted' },
  ],
};

describe('audit log', () => {
  it('formats the daily log exactly as the protocol shows it, and reads it back', () => {
    expect(formatAuditLog(SEED_VALUE)).toBe(SEED_LOG);
    expect(parseAuditLog(SEED_LOG)).toEqual({ ok: true, value: SEED_VALUE });
  });

  it('escapes pipes and backslashes in cells', () => {
    const log: AuditLog = {
      date: '2026-01-01',
      entries: [{ time: '09:05', source: 'a|b', decision: 'delete:x \\ y', executed: '✗ denied: a|b' }],
    };
    const text = formatAuditLog(log);
    expect(text).toContain('| 09:05 | a\\|b | delete:x \\\\ y | ✗ denied: a\\|b |');
    expect(parseAuditLog(text)).toEqual({ ok: true, value: log });
  });

  it('round-trips every log', () => {
    const entry = fc.record({
      time: fc
        .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
      source: lineArb,
      decision: fc.oneof(fc.constant('received'), triageArb.map(formatTriage)),
      executed: lineArb,
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), (entries) => {
        const log = { date: '2026-11-21', entries };
        expect(parseAuditLog(formatAuditLog(log))).toEqual({ ok: true, value: log });
      }),
    );
  });

  it('reads rows without their outer pipes and a separator with alignment colons', () => {
    const bare = SEED_LOG.replace('|------|--------|----------|----------|', ':--- | --- | :---: | ---:').replace(
      '| 14:00 | pi/proposal | received | — |',
      '14:00 | pi/proposal | received | —',
    );
    expect(parseAuditLog(bare)).toEqual({ ok: true, value: SEED_VALUE });
  });

  it('tolerates CRLF, padding and blank lines', () => {
    const messy = SEED_LOG.replace(/\n/g, '\r\n').replace('| 15:00 | pi/proposal |', '|15:00|   pi/proposal |') + '\r\n\r\n';
    expect(parseAuditLog(messy)).toEqual({ ok: true, value: SEED_VALUE });
  });

  it.each([
    ['no title', '| Time |', [{ code: 'missing-title', message: 'a log starts with "# Inbox Log: YYYY-MM-DD"', line: 1, column: 1 }]],
    [
      'a bad date',
      '# Inbox Log: 2026-2-5\n\n| Time | Source | Decision | Executed |\n|---|---|---|---|\n',
      [{ code: 'invalid-date', message: "log date '2026-2-5' is not YYYY-MM-DD", line: 1, column: 14 }],
    ],
    [
      'a wrong header row',
      '# Inbox Log: 2026-02-05\n| When | Source | Decision | Executed |\n',
      [{ code: 'invalid-line', message: 'expected the header row "| Time | Source | Decision | Executed |"', line: 2, column: 1 }],
    ],
    [
      'bad rows',
      '# Inbox Log: 2026-02-05\n| Time | Source | Decision | Executed |\n|---|---|---|---|\n| 25:00 | a | b | c |\n| 10:00 | a | b |\nnot a row\n',
      [
        { code: 'invalid-line', message: "time '25:00' is not HH:MM", line: 4, column: 3 },
        {
          code: 'invalid-line',
          message: 'expected a row of 4 cells "| time | source | decision | executed |", found "| 10:00 | a | b |"',
          line: 5,
          column: 1,
        },
        {
          code: 'invalid-line',
          message: 'expected a row of 4 cells "| time | source | decision | executed |", found "not a row"',
          line: 6,
          column: 1,
        },
      ],
    ],
    [
      'a Decision that is not one',
      '# Inbox Log: 2026-02-05\n| Time | Source | Decision | Executed |\n|---|---|---|---|\n| 10:00 | merge | merge | ✓ merged |\n',
      [
        {
          code: 'unknown-decision',
          message:
            "unknown decision 'merge'; expected one of delete:<reason>, defer:<reason>, delegate:<actor>, do:merge, do:reply:<branch>, do:custom:<description> (did you mean do:merge?)",
          line: 4,
          column: 19,
        },
      ],
    ],
  ])('refuses %s', (_name, text, errors) => {
    expect(parseAuditLog(text)).toEqual({ ok: false, error: errors });
  });

  it('refuses to format what it could not read back', () => {
    expect(() => formatAuditLog({ date: 'today', entries: [] })).toThrow(expect.objectContaining({ code: 'TRIAGE_INVALID_LOG' }));
    expect(() => formatAuditLog({ date: '2026-01-01', entries: [{ time: '9:00', source: 'a', decision: 'b', executed: 'c' }] })).toThrow(
      /HH:MM/,
    );
    expect(() =>
      formatAuditLog({ date: '2026-01-01', entries: [{ time: '09:00', source: 'a\nb', decision: 'received', executed: 'c' }] }),
    ).toThrow(/Source/);
    expect(() =>
      formatAuditLog({ date: '2026-01-01', entries: [{ time: '09:00', source: 'a', decision: 'merge', executed: 'c' }] }),
    ).toThrow(/Decision must be "received" or a decision/);
  });
});
