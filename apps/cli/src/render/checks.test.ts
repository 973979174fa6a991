import type { AgentInfo, CheckResultInfo } from '@cairn/daemon/client';
import { describe, expect, it } from 'vitest';
import { checksCell } from './checks.js';

const at = '2026-11-27T00:00:00.000Z';
const check = (name: string, status: CheckResultInfo['status'], auto: boolean): CheckResultInfo => ({ name, status, auto, updatedAt: at });
const agent = (checks: CheckResultInfo[]): Pick<AgentInfo, 'checks'> => ({ checks });

describe('the CHECKS cell of cairn ls', () => {
  it('counts an on-demand check gone stale for nothing: it runs again only when asked', () => {
    const stale = [check('net', 'stale', false), check('flood', 'stale', false)];
    expect(checksCell(agent([check('test', 'passed', true), ...stale]))).toEqual({ text: '✓ 1', status: 'passed' });
    expect(checksCell(agent(stale))).toEqual({ text: 'stale', status: 'none' });
  });

  it('shows pending automatic checks as running, and stale ones as stale (nothing runs them without a daemon)', () => {
    expect(checksCell(agent([check('test', 'stale', true), check('lint', 'pending', true), check('net', 'stale', false)]))).toEqual({
      text: '… 1',
      status: 'pending',
    });
    expect(checksCell(agent([check('test', 'stale', true), check('lint', 'passed', true)]))).toEqual({ text: 'stale', status: 'pending' });
    expect(checksCell(agent([check('test', 'failed', true), check('lint', 'pending', true)]))).toEqual({
      text: '✗ test',
      status: 'failed',
    });
  });
});
