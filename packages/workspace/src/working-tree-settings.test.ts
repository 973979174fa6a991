import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsyncsWorkingTree, loadWorkingTreeSettings } from './working-tree-settings.js';

describe('the workingTree settings', () => {
  let dir: string;
  let config: string;
  const write = (text: string) => writeFileSync(config, text);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-wt-settings-'));
    config = join(dir, 'config.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('does not wait for the disk unless asked', () => {
    expect(loadWorkingTreeSettings(config)).toEqual({ fsync: false });
    write('{ "model": { "name": "qwen2.5-coder:7b" } }');
    expect(loadWorkingTreeSettings(config)).toEqual({ fsync: false });
    write('{ "workingTree": { "fsync": true } }');
    expect(loadWorkingTreeSettings(config)).toEqual({ fsync: true });
    expect(fsyncsWorkingTree(config)).toBe(true);
  });

  it('refuses a malformed section with where and why, and then waits for the disk when a write is owed', () => {
    for (const [text, why] of [
      ['{ "workingTree": true }', /"workingTree" must be an object/],
      ['{ "workingTree": { "fsync": "yes" } }', /"workingTree.fsync" must be true or false/],
      ['{ "workingTree": { "fsnyc": true } }', /"workingTree.fsnyc" is not a setting/],
      ['{ "workingTree": ', /is not JSON/],
    ] as const) {
      write(text);
      expect(() => loadWorkingTreeSettings(config)).toThrow(why);
      expect(fsyncsWorkingTree(config)).toBe(true);
    }
    rmSync(config);
    mkdirSync(config);
    expect(() => loadWorkingTreeSettings(config)).toThrow(/it is a folder/);
  });
});
