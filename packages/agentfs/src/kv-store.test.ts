import { describe, expect, it } from 'vitest';
import { codeOf } from './test-support/error-code.js';
import { openTempStore } from './test-support/stores.js';

describe('key-value compliance (KV)', () => {
  it('KV-1 set and get round-trip every JSON type', () => {
    const { kv } = openTempStore();
    const values = [null, true, 0, -1.5, 'text', [1, 'two', [3]], { nested: { deep: [true] } }];
    values.forEach((value, i) => kv.set(`k${i}`, value));
    values.forEach((value, i) => expect(kv.get(`k${i}`)).toEqual(value));
  });

  it('KV-2 a missing key reads as undefined', () => {
    expect(openTempStore().kv.get('missing')).toBeUndefined();
  });

  it('KV-3 setting again replaces the value in place', () => {
    const store = openTempStore();
    store.kv.set('k', 1);
    store.kv.set('k', { v: 2 });
    expect(store.kv.get('k')).toEqual({ v: 2 });
    expect(store.db.prepare('SELECT count(*) FROM kv_store').pluck().get()).toBe(1);
  });

  it('KV-4 delete removes a key and ignores a missing one', () => {
    const { kv } = openTempStore();
    kv.set('k', 1);
    kv.delete('k');
    kv.delete('never-set');
    expect(kv.get('k')).toBeUndefined();
  });

  it('KV-5 list(prefix) returns matching entries in key order', () => {
    const { kv } = openTempStore();
    for (const key of ['agent:2', 'agent:1', 'queue:1', 'agent:10']) kv.set(key, key);
    expect(kv.list('agent:').map((e) => e.key)).toEqual(['agent:1', 'agent:10', 'agent:2']);
    expect(kv.list().length).toBe(4);
  });

  it('KV-6 LIKE wildcards in a prefix are literal', () => {
    const { kv } = openTempStore();
    for (const key of ['a_b', 'axb', 'a%c', 'abc', 'a\\d']) kv.set(key, 1);
    expect(kv.list('a_').map((e) => e.key)).toEqual(['a_b']);
    expect(kv.list('a%').map((e) => e.key)).toEqual(['a%c']);
    expect(kv.list('a\\').map((e) => e.key)).toEqual(['a\\d']);
  });

  it('KV-7 values that JSON cannot carry are EINVAL', () => {
    const { kv } = openTempStore();
    expect(codeOf(() => kv.set('f', () => 1))).toBe('EINVAL');
    expect(codeOf(() => kv.set('u', undefined))).toBe('EINVAL');
  });

  it('KV-8 values are stored as JSON text with creation and update times', () => {
    const store = openTempStore();
    store.kv.set('k', { a: [1, 2] });
    const row = store.db.prepare('SELECT value, created_at, updated_at FROM kv_store WHERE key = ?').get('k') as Record<string, unknown>;
    expect(row.value).toBe('{"a":[1,2]}');
    expect(typeof row.created_at).toBe('number');
    expect(typeof row.updated_at).toBe('number');
  });

  it('KV-9 a corrupt stored value is reported, not returned', () => {
    const store = openTempStore();
    store.db.prepare(`INSERT INTO kv_store (key, value) VALUES ('bad', '{nope')`).run();
    expect(codeOf(() => store.kv.get('bad'))).toBe('ECORRUPT');
  });
});
