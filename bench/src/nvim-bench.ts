import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { connectDaemon, startDaemon } from '@cairn/daemon';
import { projectLayout } from '@cairn/orchestrator';
import { programAnswer, startScriptedOllama } from '@cairn/orchestrator/testing';
import { attach } from 'neovim';
import { median, report, scaled, timeOnceAsync, within } from './measure.js';
import type { BenchRow } from './storage-bench.js';

const ROUNDS = scaled(10);
const BUFFERS = scaled(20);

/** The Neovim to measure: 0.10 where installed (`$CAIRN_NVIM_010` or `.ci/run`'s prefix), else `nvim` on PATH. */
function findNvim(): { path: string; version: string } | undefined {
  for (const path of [process.env.CAIRN_NVIM_010 ?? join(homedir(), '.cache/cairn/nvim-0.10/nvim'), 'nvim']) {
    if (path.includes('/') && !existsSync(path)) continue;
    const out = spawnSync(path, ['--version'], { encoding: 'utf8' });
    const version = out.status === 0 ? /NVIM v(\S+)/.exec(out.stdout)?.[1] : undefined;
    if (version !== undefined) return { path, version };
  }
  return undefined;
}

function pluginDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@cairn/nvim-bridge/package.json'));
}

/** Waits for the next notification named `method` whose arguments satisfy `accept`. */
function nextNotification(nvim: ReturnType<typeof attach>, method: string, accept: (args: unknown[]) => boolean): Promise<unknown[]> {
  return within(
    `Neovim's "${method}" notification`,
    new Promise((resolve) => {
      const listener = (name: string, args: unknown[]) => {
        if (name === method && accept(args)) {
          nvim.off('notification', listener);
          resolve(args);
        }
      };
      nvim.on('notification', listener);
    }),
  );
}

/**
 * Neovim with the plugin, a real daemon, and a scripted Ollama answering at once: save → ghost text after
 * `:Cairn spawn`, `<Leader>a` → file on disk and buffer reloaded, and 20 proposals drawn across 20 buffers.
 */
export async function benchNvim(work: string): Promise<BenchRow[]> {
  const binary = findNvim();
  if (binary === undefined) {
    report('[nvim] skipped: no Neovim found (apt-get install neovim, or scripts/install-nvim-0.10.sh ~/.cache/cairn/nvim-0.10)');
    return [];
  }
  const root = join(work, 'project');
  const home = join(work, 'home');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src/greet.js'), "export function greet(name) {\n  return 'hello ' + name;\n}\n");
  for (let i = 0; i < BUFFERS; i++) writeFileSync(join(root, `src/file${i}.js`), `export const value${i} = ${i};\n`);
  const program = [
    "const text = await read_file('src/greet.js');",
    "await write_file('src/greet.js', text + '// ' + (await get_task()) + '\\n');",
    "await submit_result('append a line', ['src/greet.js']);",
  ].join('\n');
  const ollama = await startScriptedOllama([programAnswer(program)]);
  const daemon = await startDaemon(root, { cairnHome: home, ollamaHost: ollama.host });
  const client = await connectDaemon(root, projectLayout(root, home).socketPath);
  if (client === undefined) throw new Error('the daemon does not answer');
  const proc = spawn(binary.path, ['--embed', '--headless', '--clean', '--cmd', `set rtp^=${pluginDir()}`], {
    cwd: root,
    env: { ...process.env, CAIRN_HOME: home },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const nvim = attach({ proc });
  const rows: BenchRow[] = [];
  try {
    const channel = await nvim.channelId;
    await nvim.lua(
      `local chan = ...
      vim.api.nvim_create_autocmd('User', { pattern = 'CairnDrawn', callback = function()
        local s = require('cairn').buffer_state()
        vim.rpcnotify(chan, 'drawn', vim.api.nvim_get_current_buf(), s and s.hunks or 0)
      end })
      vim.api.nvim_create_autocmd('User', { pattern = 'CairnAccepted', callback = function() vim.rpcnotify(chan, 'accepted') end })`,
      [channel],
    );
    await nvim.command('edit src/greet.js');
    for (let i = 0; i < 600 && !(await nvim.lua("return require('cairn').daemon_up()")); i++) await new Promise((r) => setTimeout(r, 50));
    const greet = (await nvim.call('bufnr', ['%'])) as number;

    const rpc: number[] = [];
    for (let i = 0; i < scaled(50); i++) rpc.push(await timeOnceAsync(() => nvim.eval('1')));

    const toGhost: number[] = [];
    const toAccepted: number[] = [];
    const plainReload: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const drawn = nextNotification(nvim, 'drawn', (args) => args[0] === greet && Number(args[1]) > 0);
      toGhost.push(
        await timeOnceAsync(() => nvim.command(`call setline(1, getline(1) . ' ') | write | Cairn spawn round ${round}`).then(() => drawn)),
      );
      const accepted = nextNotification(nvim, 'accepted', () => true);
      toAccepted.push(await timeOnceAsync(() => nvim.input('\\a').then(() => accepted)));
      if (!readFileSync(join(root, 'src/greet.js'), 'utf8').includes(`// round ${round}`))
        throw new Error('the accept did not reach the disk');
      // What a user would otherwise do to see a changed file: write it, and reload the buffer.
      const text = readFileSync(join(root, 'src/greet.js'), 'utf8');
      plainReload.push(
        await timeOnceAsync(async () => {
          writeFileSync(join(root, 'src/greet.js'), text);
          await nvim.command('edit!');
        }),
      );
    }

    // Twenty buffers, each with a proposal waiting; `:Cairn refresh` re-reads and redraws them all.
    const bufs = new Set<number>();
    for (let i = 0; i < BUFFERS; i++) {
      await nvim.command(`edit src/file${i}.js`);
      bufs.add((await nvim.call('bufnr', ['%'])) as number);
    }
    const agents = await Promise.all(
      Array.from({ length: BUFFERS }, (_, i) =>
        client.queue(`bump ${i}`, {
          code: `await write_file('src/file${i}.js', 'export const value${i} = ${i + 1};\\n'); await submit_result('bump', ['src/file${i}.js']);`,
          lang: 'js',
        }),
      ),
    );
    for (const agent of agents) await within(`agent ${agent.id} to settle`, client.wait(agent.id));
    const twenty: number[] = [];
    for (let round = 0; round < scaled(5); round++) {
      const seen = new Set<number>();
      const all = new Promise<void>((resolve) => {
        const listener = (name: string, args: unknown[]) => {
          if (name === 'drawn' && bufs.has(args[0] as number) && Number(args[1]) > 0) seen.add(args[0] as number);
          if (seen.size === BUFFERS) {
            nvim.off('notification', listener);
            resolve();
          }
        };
        nvim.on('notification', listener);
      });
      twenty.push(await timeOnceAsync(() => nvim.command('Cairn refresh').then(() => all)));
    }

    const tree = `nvim ${binary.version}`;
    const rt = median(rpc);
    rows.push(
      {
        tree,
        measure: 'save → ghost text drawn (:Cairn spawn, model answering at once)',
        unit: 'ms',
        cairn: median(toGhost),
        others: { 'nvim RPC round trip': rt },
        goal: '≤ 300 ms',
      },
      {
        tree,
        measure: '<Leader>a → file on disk and buffer reloaded',
        unit: 'ms',
        cairn: median(toAccepted),
        others: { 'write the file + :edit!': median(plainReload) },
        goal: '≤ 100 ms',
      },
      {
        tree,
        measure: `${BUFFERS} proposals drawn across ${BUFFERS} open buffers (:Cairn refresh)`,
        unit: 'ms',
        cairn: median(twenty),
        others: {},
        goal: '≤ 200 ms',
      },
    );
  } finally {
    proc.stdin?.on('error', () => undefined);
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    nvim.command('qa!').catch(() => undefined);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    proc.kill('SIGKILL');
    await client.close();
    await daemon.stop();
    await ollama.close();
  }
  return rows;
}
