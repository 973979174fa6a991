import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempFolders } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';
import { CHECK_DEFAULTS, loadCheckSettings } from './check-settings.js';

const folders = tempFolders('cairn-checks-');

function config(value: unknown): string {
  const dir = folders.make();
  const path = join(dir, 'config.json');
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

function refusal(value: unknown): string {
  try {
    loadCheckSettings(config(value));
  } catch (error) {
    expect((error as { code: string }).code).toBe('CAIRN_CONFIG');
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('check settings', () => {
  it('reads named checks with their defaults, and no file or no section as none', () => {
    expect(loadCheckSettings('/no/such/config.json')).toEqual([]);
    expect(loadCheckSettings(config({ model: {} }))).toEqual([]);
    const checks = loadCheckSettings(
      config({
        checks: {
          test: { command: ['pnpm', 'test'], timeoutMs: 5000, outputCapBytes: 4096, auto: false },
          lint: { command: ['sh', '-c', 'pnpm lint && echo ok'] },
          'type.check-2': ['tsc', '--noEmit'],
        },
      }),
    );
    expect(checks).toEqual([
      { name: 'test', command: ['pnpm', 'test'], timeoutMs: 5000, outputCapBytes: 4096, auto: false },
      { name: 'lint', command: ['sh', '-c', 'pnpm lint && echo ok'], ...CHECK_DEFAULTS },
      { name: 'type.check-2', command: ['tsc', '--noEmit'], ...CHECK_DEFAULTS },
    ]);
  });

  it('refuses a malformed entry whole, naming where and why', () => {
    expect(refusal('{"checks": ')).toMatch(/is not JSON/);
    expect(refusal({ checks: [] })).toMatch(/"checks" must be an object/);
    expect(refusal({ checks: { test: 'pnpm test' } })).toMatch(/"checks.test" must be an object/);
    expect(refusal({ checks: { test: { command: 'pnpm test' } } })).toMatch(
      /"checks.test".command must be a list \(argv\).*\["sh", "-c", "pnpm test"\]/,
    );
    expect(refusal({ checks: { test: { command: [] } } })).toMatch(/"checks.test".command must be a non-empty list/);
    expect(refusal({ checks: { test: { command: ['pnpm', 3] } } })).toMatch(/"checks.test".command\[1\] must be text/);
    expect(refusal({ checks: { test: { command: [''] } } })).toMatch(/command\[0\] must name a program/);
    expect(refusal({ checks: { test: { command: ['x'], timeoutMs: 0 } } })).toMatch(/"checks.test".timeoutMs must be a whole number/);
    expect(refusal({ checks: { test: { command: ['x'], timeoutMs: 1.5 } } })).toMatch(/timeoutMs/);
    expect(refusal({ checks: { test: { command: ['x'], outputCapBytes: 10 } } })).toMatch(/"checks.test".outputCapBytes/);
    expect(refusal({ checks: { test: { command: ['x'], auto: 'yes' } } })).toMatch(/"checks.test".auto must be true or false/);
    expect(refusal({ checks: { test: { command: ['x'], shell: true } } })).toMatch(/"checks.test".shell is not a setting/);
    expect(refusal({ checks: { 'bad name': { command: ['x'] } } })).toMatch(/"checks.bad name": a check's name/);
    expect(refusal({ checks: { ok: { command: ['x'] }, bad: { command: ['x'], auto: 1 } } })).toMatch(/"checks.bad".auto/);
  });
});
