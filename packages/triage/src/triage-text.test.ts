import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { triage } from './decision.js';
import type { Actor, BranchName, Description, Reason } from './names.js';
import { triageArb } from './test-support/arbitraries.js';
import { checkTriage, formatTriage, parseTriage } from './triage-text.js';

const r = (s: string) => s as Reason;

describe('decision string form', () => {
  it.each([
    ['delete:stale', triage.delete(r('stale'))],
    ['d:stale', triage.delete(r('stale'))],
    ['defer:waiting for CI', triage.defer(r('waiting for CI'))],
    ['f:later', triage.defer(r('later'))],
    ['delegate:omega', triage.delegate('omega' as Actor)],
    ['g:omega', triage.delegate('omega' as Actor)],
    ['do:merge', triage.merge()],
    ['do:reply:sigma/re-proposal', triage.reply('sigma/re-proposal' as BranchName)],
    ['do:custom:run the benchmarks: all of them', triage.custom('run the benchmarks: all of them' as Description)],
    ['  delete :  stale  ', triage.delete(r('stale'))],
    ['do : merge', triage.merge()],
    ['delete:a: reason with colons', triage.delete(r('a: reason with colons'))],
  ])('%j parses', (text, expected) => {
    expect(parseTriage(text)).toEqual({ ok: true, value: expected });
  });

  const FORMS = 'delete:<reason>, defer:<reason>, delegate:<actor>, do:merge, do:reply:<branch>, do:custom:<description>';
  it.each([
    ['', 'empty', `no decision; expected one of ${FORMS}`, 1],
    ['merge', 'unknown-decision', `unknown decision 'merge'; expected one of ${FORMS} (did you mean do:merge?)`, 1],
    ['  DELETE:x', 'unknown-decision', `unknown decision 'DELETE'; expected one of ${FORMS} (did you mean delete:<reason>?)`, 3],
    ['approve', 'unknown-decision', `unknown decision 'approve'; expected one of ${FORMS} (did you mean do:merge?)`, 1],
    ['delete', 'missing-separator', "'delete' needs a ':' and what follows it: delete:<reason>", 7],
    ['delete:', 'missing-payload', 'delete needs a reason: write delete:<reason>', 8],
    ['defer:   ', 'missing-payload', 'defer needs a reason: write defer:<reason>', 7],
    ['delegate:', 'missing-payload', 'delegate needs an actor: write delegate:<actor>', 10],
    [
      'delegate:two words',
      'invalid-actor',
      "actor 'two words' may hold only letters, digits, '.', '_' and '-', starting with a letter or digit",
      13,
    ],
    ['do', 'missing-separator', "'do' needs a ':' and what follows it: do:merge, do:reply:<branch> or do:custom:<description>", 3],
    ['do:', 'missing-payload', 'do needs an action: do:merge, do:reply:<branch> or do:custom:<description>', 4],
    ['do:rebase', 'unknown-action', "unknown action 'do:rebase'; expected do:merge, do:reply:<branch> or do:custom:<description>", 4],
    ['do:merge:now', 'unexpected-payload', "do:merge takes nothing after it; found ':now'", 9],
    ['do:reply', 'missing-payload', 'do:reply needs a branch: write do:reply:<branch>', 9],
    ['do:reply:', 'missing-payload', 'do:reply needs a branch: write do:reply:<branch>', 9],
    ['do:reply:bad branch', 'invalid-branch', "branch 'bad branch' contains 'a space', which git does not allow", 13],
    ['do:reply:a..b', 'invalid-branch', "branch 'a..b' contains '..'", 11],
    ['do:reply:topic.lock', 'invalid-branch', "branch 'topic.lock' ends with '.lock'", 15],
    ['do:reply:-x', 'invalid-branch', "branch '-x' starts with '-'", 10],
    ['do:custom:', 'missing-payload', 'do:custom needs a description: write do:custom:<description>', 10],
    ['delete:two\nlines', 'invalid-reason', 'reason must be one line', 11],
    ['defer:bell\u0007', 'invalid-reason', 'reason contains a control character', 11],
  ])('%j is refused: %s', (text, code, message, column) => {
    expect(parseTriage(text)).toEqual({ ok: false, error: { code, message, line: 1, column } });
  });

  it('formatTriage is the inverse of parseTriage for every decision', () => {
    fc.assert(
      fc.property(triageArb, (decision) => {
        expect(parseTriage(formatTriage(decision))).toEqual({ ok: true, value: decision });
      }),
    );
  });

  it('formatting a parsed string gives its canonical form, which parses to the same value', () => {
    fc.assert(
      fc.property(triageArb, fc.constantFrom('', ' ', '\t'), (decision, pad) => {
        const canonical = formatTriage(decision);
        const short = canonical
          .replace(/^delete:/, 'd:')
          .replace(/^defer:/, 'f:')
          .replace(/^delegate:/, 'g:');
        const parsed = parseTriage(pad + short + pad);
        expect(parsed.ok && formatTriage(parsed.value)).toBe(canonical);
      }),
    );
  });

  it('parseTriage never throws', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseTriage(text)));
  });

  it('checkTriage validates values from untyped sources', () => {
    expect(checkTriage(JSON.parse('{"type":"do","action":{"type":"merge"}}'))).toEqual({ ok: true, value: triage.merge() });
    expect(checkTriage({ type: 'delete', reason: '' })).toMatchObject({ ok: false, error: { code: 'invalid-reason' } });
    expect(checkTriage({ type: 'do', action: { type: 'push' } })).toMatchObject({ ok: false, error: { code: 'unknown-action' } });
    expect(checkTriage({ type: 'merge' })).toMatchObject({ ok: false, error: { code: 'unknown-decision' } });
    expect(checkTriage('do:merge')).toMatchObject({ ok: false, error: { code: 'unknown-decision' } });
    expect(() => formatTriage({ type: 'delete', reason: ' padded ' as Reason })).toThrow(
      expect.objectContaining({ code: 'TRIAGE_INVALID_VALUE' }),
    );
  });
});
