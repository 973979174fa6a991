import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attach, type NeovimClient } from 'neovim';

/** The plugin folder (the one holding lua/, plugin/ and doc/). */
export const PLUGIN_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface NvimBinary {
  label: string;
  path: string;
  version: string;
}

function versionOf(path: string): string | undefined {
  const out = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  return out.status === 0 ? /NVIM v(\S+)/.exec(out.stdout)?.[1] : undefined;
}

/**
 * The Neovims to test on: Debian's (`nvim` on PATH, 0.7.2) and 0.10 (`$CAIRN_NVIM_010`, else where `.ci/run`
 * installs it). In CI both must be present; elsewhere the missing one is skipped and named.
 */
export function nvimBinaries(): { found: NvimBinary[]; missing: string[] } {
  const candidates = [
    { label: 'system', path: 'nvim' },
    { label: '0.10', path: process.env.CAIRN_NVIM_010 ?? join(homedir(), '.cache/cairn/nvim-0.10/nvim') },
  ];
  const found: NvimBinary[] = [];
  const missing: string[] = [];
  for (const c of candidates) {
    const version = c.path.includes('/') && !existsSync(c.path) ? undefined : versionOf(c.path);
    if (version === undefined) missing.push(`${c.label} (${c.path})`);
    else found.push({ ...c, version });
  }
  if (process.env.CI === 'true' && missing.length > 0) throw new Error(`CI needs every Neovim; missing: ${missing.join(', ')}`);
  return { found, missing };
}

export interface EmbeddedNvim {
  nvim: NeovimClient;
  proc: ChildProcess;
  lua<T = unknown>(code: string, ...args: unknown[]): Promise<T>;
  quit(): Promise<void>;
}

/** A real `nvim --embed --headless --clean` with the plugin on its runtimepath, in `cwd`. */
export async function startNvim(binary: NvimBinary, cwd: string, env: NodeJS.ProcessEnv, extraCmds: string[] = []): Promise<EmbeddedNvim> {
  const args = ['--embed', '--headless', '--clean', '--cmd', 'set lines=24 columns=100', '--cmd', `set rtp^=${PLUGIN_DIR}`];
  for (const cmd of extraCmds) args.push('--cmd', cmd);
  const proc = spawn(binary.path, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const nvim = attach({ proc });
  await nvim.channelId;
  return {
    nvim,
    proc,
    lua: (code, ...luaArgs) => nvim.lua(code, luaArgs as never) as Promise<never>,
    quit: async () => {
      const exited = new Promise<void>((resolve) => {
        if (proc.exitCode !== null) resolve();
        else proc.once('exit', () => resolve());
      });
      nvim.command('qa!').catch(() => undefined);
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `probe` until it returns a value other than undefined (a test helper; the plugin itself never polls). */
export async function until<T>(label: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
