import { describe, expect, it } from 'vitest';
import { codeOf } from './test-support/error-code.js';
import { openTempStore } from './test-support/stores.js';

describe('tool-call log compliance (TC)', () => {
  it('TC-1 a successful call is recorded with JSON parameters and result', () => {
    const { tools } = openTempStore();
    const id = tools.record({ name: 'read_file', parameters: { path: 'a.ts' }, result: { bytes: 10 }, startedAt: 100, completedAt: 101 });
    expect(tools.get(id)).toEqual({
      id,
      name: 'read_file',
      parameters: { path: 'a.ts' },
      result: { bytes: 10 },
      error: null,
      status: 'success',
      startedAt: 100,
      completedAt: 101,
      durationMs: 1000,
    });
  });

  it('TC-2 a failed call keeps its error and no result', () => {
    const { tools } = openTempStore();
    const id = tools.record({
      name: 'write_file',
      parameters: { path: '.env' },
      error: 'denied by policy',
      startedAt: 5,
      completedAt: 5,
      durationMs: 3,
    });
    expect(tools.get(id)).toMatchObject({ error: 'denied by policy', result: null, status: 'error', durationMs: 3 });
  });

  it('TC-3 exactly one of result and error is required', () => {
    const { tools } = openTempStore();
    expect(codeOf(() => tools.record({ name: 'x', startedAt: 1, completedAt: 1 }))).toBe('EINVAL');
    expect(codeOf(() => tools.record({ name: 'x', result: 1, error: 'e', startedAt: 1, completedAt: 1 }))).toBe('EINVAL');
  });

  it('TC-4 times must be ordered and a name given', () => {
    const { tools } = openTempStore();
    expect(codeOf(() => tools.record({ name: 'x', result: 1, startedAt: 2, completedAt: 1 }))).toBe('EINVAL');
    expect(codeOf(() => tools.record({ name: '', result: 1, startedAt: 1, completedAt: 1 }))).toBe('EINVAL');
  });

  it('TC-5 the log is append-only with increasing ids, listed in order', () => {
    const { tools } = openTempStore();
    const ids = ['a', 'b', 'a'].map((name, i) => tools.record({ name, result: i, startedAt: i, completedAt: i }));
    expect(ids[0]! < ids[1]! && ids[1]! < ids[2]!).toBe(true);
    expect(tools.list().map((c) => c.result)).toEqual([0, 1, 2]);
    expect(tools.list({ name: 'a' }).map((c) => c.id)).toEqual([ids[0], ids[2]]);
    expect(tools.recent(1).map((c) => c.id)).toEqual([ids[2]]);
  });

  it('TC-6 stats count calls and failures per name', () => {
    const { tools } = openTempStore();
    tools.record({ name: 'a', result: 1, startedAt: 0, completedAt: 1 });
    tools.record({ name: 'a', error: 'x', startedAt: 0, completedAt: 3 });
    tools.record({ name: 'b', result: 1, startedAt: 0, completedAt: 0 });
    expect(tools.stats()).toEqual([
      { name: 'a', total: 2, failed: 1, avgDurationMs: 2000 },
      { name: 'b', total: 1, failed: 0, avgDurationMs: 0 },
    ]);
  });

  it('TC-7 parameters and results are stored as JSON text', () => {
    const store = openTempStore();
    const id = store.tools.record({ name: 'n', parameters: ['p'], result: { r: 1 }, startedAt: 0, completedAt: 0 });
    expect(store.db.prepare('SELECT parameters, result FROM tool_calls WHERE id = ?').get(id)).toEqual({
      parameters: '["p"]',
      result: '{"r":1}',
    });
  });
});
