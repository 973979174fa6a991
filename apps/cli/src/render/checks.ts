import { type AgentInfo, type CheckResultInfo, describeCheckStatus } from '@cairn/daemon/client';
import type { Paint } from '../output.js';

/** ✓, ✗ or … for a check's status. */
export function checkMark(status: CheckResultInfo['status'], paint: Paint): string {
  if (status === 'passed') return paint.green('✓');
  if (status === 'pending' || status === 'stale') return paint.yellow('…');
  return paint.red('✗');
}

/** One clear line per check: mark, name, what it came to, how long, where it ran. */
export function renderCheckLine(check: CheckResultInfo, paint: Paint, nameWidth = check.name.length): string {
  const words = describeCheckStatus(check);
  const took = check.durationMs === undefined || check.status === 'pending' ? '' : `  ${(check.durationMs / 1000).toFixed(1)} s`;
  const where =
    check.view === undefined || check.status === 'pending'
      ? ''
      : paint.dim(`  ${check.view}${check.sealed === true ? ', sealed' : ', not sealed'}`);
  const cut = check.truncated === true ? paint.dim(`  output capped (${check.outputBytes ?? '?'} bytes printed)`) : '';
  const auto = check.auto ? '' : paint.dim('  (on demand)');
  return `${checkMark(check.status, paint)} ${check.name.padEnd(nameWidth)}  ${words}${took}${where}${cut}${auto}`;
}

/** The lines of an agent's checks, with why each view was used. */
export function renderChecks(checks: readonly CheckResultInfo[], paint: Paint, indent = ''): string[] {
  const width = Math.max(4, ...checks.map((c) => c.name.length));
  return checks.map((check) => `${indent}${renderCheckLine(check, paint, width)}`);
}

/**
 * The CHECKS column of `cairn ls`: `✓ 2`, `✗ test`, `… 1` (running or due), `stale` (an automatic check ran on
 * an older working tree or proposal and has not run again: without a daemon nothing runs it until asked), or
 * nothing without checks. An on-demand check's stale result runs again only when asked, so it counts for nothing.
 */
export function checksCell(agent: Pick<AgentInfo, 'checks'>): { text: string; status: 'passed' | 'failed' | 'pending' | 'none' } {
  const all = agent.checks ?? [];
  if (all.length === 0) return { text: '', status: 'none' };
  const checks = all.filter((c) => c.auto || c.status !== 'stale');
  if (checks.length === 0) return { text: 'stale', status: 'none' };
  const failed = checks.filter((c) => c.status === 'failed' || c.status === 'timed-out' || c.status === 'error');
  if (failed.length > 0) return { text: `✗ ${failed.map((c) => c.name).join(',')}`, status: 'failed' };
  const pending = checks.filter((c) => c.status === 'pending');
  if (pending.length > 0) return { text: `… ${pending.length}`, status: 'pending' };
  if (checks.some((c) => c.status === 'stale')) return { text: 'stale', status: 'pending' };
  return { text: `✓ ${checks.length}`, status: 'passed' };
}
