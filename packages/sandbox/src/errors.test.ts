import { describe, expect, it } from 'vitest';
import { isSandboxError, SandboxError } from './errors.js';

describe('isSandboxError', () => {
  it('knows the error by name and code, also when it crossed a process as plain data', () => {
    const error = new SandboxError('SANDBOX_CLOSED', 'boom');
    expect(isSandboxError(error)).toBe(true);
    expect(isSandboxError(error, 'SANDBOX_CLOSED')).toBe(true);
    expect(isSandboxError(error, 'SANDBOX_INVALID_LIMITS')).toBe(false);
    expect(isSandboxError({ name: 'SandboxError', code: 'SANDBOX_CLOSED', message: 'boom' }, 'SANDBOX_CLOSED')).toBe(true);
    expect(isSandboxError(new Error('boom'))).toBe(false);
    expect(isSandboxError(undefined)).toBe(false);
    expect(isSandboxError('SandboxError')).toBe(false);
  });
});
