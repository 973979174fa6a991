import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { bufferLines, messages } from './test-support/inspect.js';
import { describeInNeovims, type EmbeddedNvim, PLUGIN_DIR, startNvim, until } from './test-support/nvim.js';
import { type DaemonProject, GREET, startDaemonProject } from './test-support/project.js';

/** Only catches a hang: before, these commands never returned. */
const HANG_MS = 10_000;

const REAL_BRIDGE = pathToFileURL(join(PLUGIN_DIR, 'bin/cairn-nvim-bridge.mjs')).href;

/** Bridges that misbehave at start, as scripts the plugin's `bridge` option can point at. */
const BRIDGES = {
  /** Waits until `gate` exists, then runs the real bridge. */
  gated: (gate: string) =>
    `import { existsSync } from 'node:fs';\n` +
    `while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 20));\n` +
    `await import(${JSON.stringify(REAL_BRIDGE)});\n`,
  /** Runs and never reads a byte. */
  silent: () => `process.stderr.write('cairn-test: listening to nobody\\n');\nsetInterval(() => {}, 1 << 30);\n`,
  /** Dies at once. */
  dying: () => `process.stderr.write('cairn-test: the bridge cannot start\\n');\nprocess.exit(3);\n`,
};

/** Runs `step` and fails if it has not returned within HANG_MS; resolves to how long it took. */
async function promptly(label: string, step: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} did not return within ${HANG_MS / 1000} s: the editor is blocked`)), HANG_MS);
  });
  try {
    await Promise.race([step(), hang]);
  } finally {
    clearTimeout(timer);
  }
  return performance.now() - started;
}

/** Whether process `pid` still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describeInNeovims('Cairn while its bridge starts, in Neovim', (binary) => {
  let vim: EmbeddedNvim | undefined;
  let project: DaemonProject | undefined;
  let base: string | undefined;
  let bridgePid: number | undefined;

  afterEach(async () => {
    await vim?.quit();
    vim = undefined;
    if (bridgePid !== undefined) {
      const pid = bridgePid;
      bridgePid = undefined;
      await until('the bridge gone with Neovim', async () => (alive(pid) ? undefined : true), HANG_MS).finally(() => {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      });
    }
    await project?.close();
    project = undefined;
    if (base !== undefined) rmSync(base, { recursive: true, force: true });
    base = undefined;
  });

  /** Neovim in `root` with the plugin's bridge replaced by `script`; resolves once the bridge process runs. */
  async function startWithBridge(root: string, env: NodeJS.ProcessEnv, script: string): Promise<EmbeddedNvim> {
    base ??= mkdtempSync(join(tmpdir(), 'cairn-nvim-start-'));
    const path = join(base, 'bridge.mjs');
    writeFileSync(path, script);
    vim = await startNvim(binary, root, env, [`lua require('cairn').setup({ bridge = ${JSON.stringify(path)} })`]);
    bridgePid = await until('the bridge started', () =>
      vim!.lua<number | null>("return require('cairn.job').pid").then((p) => p ?? undefined),
    );
    return vim;
  }

  /** A project with no daemon: a folder with .agentfs/ and one file. */
  function bareProject(): { root: string; env: NodeJS.ProcessEnv } {
    base ??= mkdtempSync(join(tmpdir(), 'cairn-nvim-start-'));
    const root = join(base, 'project');
    mkdirSync(join(root, '.agentfs'), { recursive: true });
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/greet.js'), GREET);
    return { root, env: { CAIRN_HOME: join(base, 'home') } };
  }

  const health = async (v: EmbeddedNvim) => {
    await v.nvim.command('checkhealth cairn');
    return (await bufferLines(v)).join('\n');
  };
  /** What :Cairn status said (it says it before returning). */
  const statusMessage = async (v: EmbeddedNvim) => {
    const before = (await messages(v)).length;
    await v.nvim.command('Cairn status');
    return (await messages(v)).slice(before);
  };
  const pressAccept = async (v: EmbeddedNvim) => {
    await v.nvim.input('\\a');
    // A round trip: it is answered only once the key's handler has let go of the editor.
    await v.nvim.eval('1');
  };

  it('answers :checkhealth cairn, :Cairn status and <Leader>a at once while the bridge starts, then works once it is up', async () => {
    project = await startDaemonProject();
    base = mkdtempSync(join(tmpdir(), 'cairn-nvim-start-'));
    const gate = join(base, 'go');
    const v = await startWithBridge(project.root, project.env, BRIDGES.gated(gate));

    await promptly(':checkhealth cairn', async () =>
      expect(await health(v)).toMatch(/the bridge is still starting \(pid \d+, started [\d.]+ s ago\)/),
    );
    await promptly(':Cairn status', async () => expect(await statusMessage(v)).toMatch(/the bridge is still starting \(pid \d+/));
    await promptly('<Leader>a', () => pressAccept(v));
    await until('the key answered', async () => ((await messages(v)).match(/still starting/g)?.length === 2 ? true : undefined), HANG_MS);
    await promptly(':Cairn agents', () => v.nvim.command('Cairn agents'));
    await until('the command held', async () => ((await messages(v)).includes('`agents` goes through once it is up') ? true : undefined));
    expect(project.read('src/greet.js')).toBe(GREET);

    writeFileSync(gate, '');
    const list = await until('the agents list once the bridge is up', async () => {
      const lines = await bufferLines(v);
      return /^ID\s+STATE/.test(lines[0] ?? '') ? lines : undefined;
    });
    expect(list[1]).toContain('no agents yet');
    await until('the bridge at the daemon', async () => ((await v.lua<boolean>("return require('cairn').daemon_up()")) ? true : undefined));
    const report = await until('a healthy report', async () => {
      const text = await health(v);
      return text.includes('bridge running') ? text : undefined;
    });
    expect(report).toContain('daemon up');
  });

  it('names a bridge that never answers, and the editor stays free', async () => {
    const { root, env } = bareProject();
    const v = await startWithBridge(root, env, BRIDGES.silent());

    await promptly(':checkhealth cairn', async () => expect(await health(v)).toMatch(/the bridge is still starting \(pid \d+/));
    await promptly(':Cairn status', async () => expect(await statusMessage(v)).toMatch(/the bridge is still starting \(pid \d+/));
    await promptly('<Leader>a', () => pressAccept(v));
    await until('the key answered', async () => ((await messages(v)).match(/still starting/g)?.length === 2 ? true : undefined), HANG_MS);
    expect(await v.lua<string>('return vim.api.nvim_get_mode().mode')).toBe('n');
  });

  it('names a bridge that died at start, with its last error output', async () => {
    const { root, env } = bareProject();
    const v = await startWithBridge(root, env, BRIDGES.dying());
    const dead = /not running \(it exited with code 3\); its last error output: cairn-test: the bridge cannot start/;
    const situation = /the bridge is still starting \(pid \d+|not running \(it exited with code 3\)/;

    // Asked at once, the bridge may not have died yet: either is a prompt, true answer.
    await promptly(':checkhealth cairn', async () => expect(await health(v)).toMatch(situation));
    await promptly(':Cairn status', async () => expect(await statusMessage(v)).toMatch(situation));
    await promptly('<Leader>a', () => pressAccept(v));

    await until('the exit seen', async () => ((await v.lua<boolean>("return require('cairn.job').running()")) ? undefined : true), HANG_MS);
    bridgePid = undefined;
    await until('the exit told', async () =>
      (await messages(v)).includes('the bridge stopped (exit 3): cairn-test: the bridge cannot start') ? true : undefined,
    );
    await promptly(':checkhealth cairn', async () => expect(await health(v)).toMatch(dead));
    await promptly(':Cairn status', async () => expect(await statusMessage(v)).toMatch(dead));
    const told = async () => (await messages(v)).split('not running (it exited with code 3)').length;
    const before = await told();
    await promptly('<Leader>a', () => pressAccept(v));
    await until('the key answered', async () => ((await told()) > before ? true : undefined), HANG_MS);
  });
});
