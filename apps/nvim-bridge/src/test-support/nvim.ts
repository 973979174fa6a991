import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { attach, type NeovimClient } from 'neovim';
import { describeWithTools } from './describe-with-tools.js';
import { lookUpNeovims, type NvimBinary, neovimTitle } from './neovim-tools.js';

/** The plugin folder (the one holding lua/, plugin/ and doc/). */
export const PLUGIN_DIR = fileURLToPath(new URL('../..', import.meta.url));

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

/** One suite per Neovim (`nvim` on PATH and 0.10), each skipped with one line when its Neovim is missing. */
export function describeInNeovims(title: string, body: (binary: NvimBinary) => void): void {
  for (const lookup of lookUpNeovims()) describeWithTools(`${title} ${neovimTitle(lookup)}`, [lookup], body);
}
