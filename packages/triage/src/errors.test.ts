import { describe, expect, it } from 'vitest';
import { isTriageError, TriageError } from './errors.js';

describe('isTriageError', () => {
  it('knows the error by name and code, also when it crossed a process as plain data', () => {
    const error = new TriageError('TRIAGE_INVALID_VALUE', 'boom');
    expect(isTriageError(error)).toBe(true);
    expect(isTriageError(error, 'TRIAGE_INVALID_VALUE')).toBe(true);
    expect(isTriageError(error, 'TRIAGE_INVALID_LOG')).toBe(false);
    expect(isTriageError({ name: 'TriageError', code: 'TRIAGE_INVALID_VALUE', message: 'boom' }, 'TRIAGE_INVALID_VALUE')).toBe(true);
    expect(isTriageError(new Error('boom'))).toBe(false);
    expect(isTriageError(undefined)).toBe(false);
    expect(isTriageError('TriageError')).toBe(false);
  });
});
