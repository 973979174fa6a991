import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describeInNeovims, type EmbeddedNvim, startNvim } from './test-support/nvim.js';

describeInNeovims('finding the project, in Neovim', (binary) => {
  let base: string;
  let vim: EmbeddedNvim | undefined;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'cairn-nvim-root-')));
  });

  afterEach(async () => {
    await vim?.quit();
    rmSync(base, { recursive: true, force: true });
  });

  it('finds the nearest .agentfs/ upwards, but never across a nearer .git, as the cairn command does', async () => {
    mkdirSync(join(base, '.agentfs'));
    mkdirSync(join(base, 'src/deep'), { recursive: true });
    mkdirSync(join(base, 'vendor/lib/.git'), { recursive: true });
    mkdirSync(join(base, 'vendor/lib/src'), { recursive: true });
    mkdirSync(join(base, 'worktree/src'), { recursive: true });
    writeFileSync(join(base, 'worktree/.git'), 'gitdir: /elsewhere/.git/worktrees/w\n');
    vim = await startNvim(binary, base, {}, ['let g:cairn_auto_start = 0']);
    const find = (dir: string) => vim!.lua<string | null>("return require('cairn.project').find(...)", join(base, dir));
    expect(await find('src/deep')).toBe(base);
    expect(await find('.')).toBe(base);
    expect(await find('vendor/lib/src')).toBeNull();
    expect(await find('worktree/src')).toBeNull();
  });
});
