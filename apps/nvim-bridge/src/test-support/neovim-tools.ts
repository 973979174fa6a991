import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { lookUpTool, type OptionalTool, type ToolLookup } from './optional-tool.js';

/** A Neovim to test the plugin on. */
export interface NvimBinary {
  label: string;
  path: string;
  version: string;
}

/** `CAIRN_REQUIRE_NVIM` (set by `.ci/run`) makes every tool here mandatory. */
const REQUIRED_BY = 'CAIRN_REQUIRE_NVIM';

function versionOf(path: string): string | undefined {
  if (path.includes('/') && !existsSync(path)) return undefined;
  const out = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  return out.status === 0 ? /NVIM v(\S+)/.exec(out.stdout)?.[1] : undefined;
}

function findNvim(label: string, path: string): NvimBinary | undefined {
  const version = versionOf(path);
  return version === undefined ? undefined : { label, path, version };
}

/** Neovim as the distribution ships it: `nvim` on PATH (0.7.2 on Debian bookworm). */
export const SYSTEM_NVIM: OptionalTool<NvimBinary> = {
  name: 'nvim (Neovim on PATH)',
  howToGet: 'apt-get install neovim',
  requiredBy: REQUIRED_BY,
  find: () => findNvim('system', 'nvim'),
};

function nvim010Path(env: NodeJS.ProcessEnv): string {
  return env.CAIRN_NVIM_010 || join(homedir(), '.cache/cairn/nvim-0.10/nvim');
}

/** Neovim 0.10: `$CAIRN_NVIM_010`, else where scripts/install-nvim-0.10.sh puts it by default. */
export const NVIM_010: OptionalTool<NvimBinary> = {
  name: `Neovim 0.10 (${nvim010Path(process.env)})`,
  howToGet: process.env.CAIRN_NVIM_010
    ? 'bash scripts/install-nvim-0.10.sh ~/.cache/cairn/nvim-0.10, and point CAIRN_NVIM_010 at the path it prints'
    : 'bash scripts/install-nvim-0.10.sh ~/.cache/cairn/nvim-0.10',
  requiredBy: REQUIRED_BY,
  find: () => findNvim('0.10', nvim010Path(process.env)),
};

/** tmux, which runs Neovim's real terminal UI without a terminal. */
export const TMUX: OptionalTool<string> = {
  name: 'tmux',
  howToGet: 'apt-get install tmux',
  requiredBy: REQUIRED_BY,
  find: () => {
    const out = spawnSync('tmux', ['-V'], { encoding: 'utf8', timeout: 20_000 });
    return out.status === 0 ? out.stdout.trim() : undefined;
  },
};

/** Every tool the plugin's tests need. */
export const NVIM_TEST_TOOLS: readonly OptionalTool<unknown>[] = [SYSTEM_NVIM, NVIM_010, TMUX];

let neovims: ToolLookup<NvimBinary>[] | undefined;

/** Both Neovims, each found or missing (a missing one throws under `CAIRN_REQUIRE_NVIM`). */
export function lookUpNeovims(): ToolLookup<NvimBinary>[] {
  neovims ??= [lookUpTool(SYSTEM_NVIM), lookUpTool(NVIM_010)];
  return neovims;
}

/** A title naming the Neovim a suite runs on: `system 0.7.2`, or the missing one's name. */
export function neovimTitle(lookup: ToolLookup<NvimBinary>): string {
  return lookup.found ? `${lookup.tool.label} ${lookup.tool.version}` : lookup.name;
}
