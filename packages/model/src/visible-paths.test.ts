import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentFS, Overlay } from '@cairn/agentfs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MappedTree } from './visible-paths.js';
import { listVisiblePaths } from './visible-paths.js';

describe('listVisiblePaths', () => {
  let dir: string;
  let stable: AgentFS;
  const overlays: Overlay[] = [];
  const view = (overlay: Overlay, readExclude: string[] = ['.env']) => ({ fs: overlay.fs, readExclude }) as unknown as MappedTree;
  const overlay = () => {
    const opened = Overlay.open(join(dir, `agent-${overlays.length}.db`), stable);
    overlays.push(opened);
    return opened;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-visible-'));
    stable = AgentFS.open(join(dir, 'stable.db'));
    stable.fs.mkdir('/src/lib', { recursive: true });
    for (const path of ['/src/a.ts', '/src/lib/b.ts', '/README.md', '/.env']) stable.fs.writeFile(path, 'x');
  });
  afterEach(() => {
    for (const opened of overlays.splice(0)) opened.close();
    stable.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists a fresh overlay as its base, and again after the base changed', () => {
    const first = overlay();
    expect(listVisiblePaths(view(first))).toEqual({
      files: ['README.md', 'src/a.ts', 'src/lib/b.ts'],
      dirs: ['src', 'src/lib'],
      cut: false,
    });
    // the listing is shared until the base changes, and no caller can change it
    expect(listVisiblePaths(view(overlay())).files).toBe(listVisiblePaths(view(first)).files);
    expect(() => (listVisiblePaths(view(first)).files as string[]).push('not/there.ts')).toThrow(TypeError);
    stable.fs.writeFile('/src/c.ts', 'x');
    stable.fs.unlink('/README.md');
    const again = listVisiblePaths(view(overlay()));
    expect(again.files).toEqual(['src/a.ts', 'src/c.ts', 'src/lib/b.ts']);
    expect(listVisiblePaths(view(first)).files).toEqual(again.files);
  });

  it('sees what another connection committed to the base', () => {
    const first = overlay();
    expect(listVisiblePaths(view(first)).files).toContain('README.md');
    const other = AgentFS.open(join(dir, 'stable.db'));
    other.fs.writeFile('/from-elsewhere.ts', 'x');
    other.close();
    expect(listVisiblePaths(view(first)).files).toContain('from-elsewhere.ts');
  });

  it("shows an overlay's own writes and deletions, and each exclusion list its own view", () => {
    const agent = overlay();
    expect(listVisiblePaths(view(agent)).files).toHaveLength(3);
    agent.fs.writeFile('/src/new.ts', 'x');
    agent.fs.unlink('/src/lib/b.ts');
    expect(listVisiblePaths(view(agent)).files).toEqual(['README.md', 'src/a.ts', 'src/new.ts']);
    expect(listVisiblePaths(view(overlay(), [])).files).toEqual(['.env', 'README.md', 'src/a.ts', 'src/lib/b.ts']);
    expect(listVisiblePaths(view(overlay(), ['src/lib'])).dirs).toEqual(['src']);
  });

  it('cuts a listing at the limit', () => {
    expect(listVisiblePaths(view(overlay()), 2)).toEqual({ files: ['README.md'], dirs: ['src'], cut: true });
    expect(listVisiblePaths(view(overlay())).cut).toBe(false);
  });
});
