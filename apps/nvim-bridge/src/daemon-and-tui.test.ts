import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connectDaemon } from '@cairn/daemon';
import { projectLayout } from '@cairn/orchestrator';
import { programAnswer, type ScriptedOllama, startScriptedOllama } from '@cairn/orchestrator/testing';
import { afterEach, expect, it } from 'vitest';
import { describeWithTools } from './test-support/describe-with-tools.js';
import { cairnMarks, messages } from './test-support/inspect.js';
import { lookUpNeovims, TMUX } from './test-support/neovim-tools.js';
import { describeInNeovims, type EmbeddedNvim, PLUGIN_DIR, startNvim, until } from './test-support/nvim.js';
import { lookUpTool } from './test-support/optional-tool.js';
import { type DaemonProject, replaceProgram, startDaemonProject } from './test-support/project.js';

const CAIRN = fileURLToPath(new URL('../../cli/bin/cairn.mjs', import.meta.url));
const BYE = replaceProgram(
  'src/greet.js',
  [['export const answer = 42;\n', "export const answer = 42;\nexport const bye = () => 'bye';\n"]],
  'add bye',
);

describeInNeovims('the daemon from Neovim', (binary) => {
  let project: DaemonProject | undefined;
  let vim: EmbeddedNvim | undefined;
  // Set when :Cairn up started a daemon of its own, which `cairn down` then stops. (The test's own daemon runs
  // in this process, so a blocking `cairn down` would wait on it forever.)
  let detached = false;

  afterEach(async () => {
    await vim?.quit();
    if (project !== undefined && detached)
      spawnSync(process.execPath, [CAIRN, 'down', '--project', project.root], { env: { ...process.env, ...project.env } });
    await project?.close();
    detached = false;
  });

  it('says once that no daemon runs, and :Cairn up starts one whose proposals then show', async () => {
    project = await startDaemonProject();
    await project.daemon.stop();
    vim = await startNvim(binary, project.root, project.env);
    await vim.nvim.command('edit src/greet.js');
    await until('the notice', async () => ((await messages(vim!)).includes('no Cairn daemon runs') ? true : undefined));
    await vim.nvim.command('edit src/greet.js');
    expect((await messages(vim)).split('no Cairn daemon runs').length - 1).toBe(1);

    detached = true;
    // :Cairn up returns at once; the daemon comes up in the background and the bridge says so.
    await vim.nvim.command('Cairn up');
    await until('the daemon up', async () => ((await vim!.lua<boolean>("return require('cairn').daemon_up()")) ? true : undefined));
    await until('the daemon told up', async () => ((await messages(vim!)).includes('the Cairn daemon is up') ? true : undefined));
    const client = await connectDaemon(project.root, projectLayout(project.root, project.home).socketPath);
    expect(client).toBeDefined();
    const agent = await client!.spawn('add bye', { code: BYE, lang: 'js' });
    expect((await client!.wait(agent.id)).state).toBe('reviewing');
    await until('ghost text', async () =>
      (await cairnMarks(vim!)).some((m) => m.virtLines.some((l) => l.includes('bye'))) ? true : undefined,
    );
    await client!.close();
  });

  it('picks up a daemon started in a terminal at the next :Cairn command', async () => {
    project = await startDaemonProject();
    await project.daemon.stop();
    vim = await startNvim(binary, project.root, project.env);
    await vim.nvim.command('edit src/greet.js');
    await until('the notice', async () => ((await messages(vim!)).includes('no Cairn daemon runs') ? true : undefined));
    detached = true;
    const up = spawnSync(process.execPath, [CAIRN, 'up', '--detach', '--project', project.root], {
      env: { ...process.env, ...project.env },
      encoding: 'utf8',
    });
    expect(up.status, up.stderr).toBe(0);
    await vim.nvim.command('Cairn agents');
    const list = await until('the agents list', async () => {
      const lines = await vim!.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)');
      return /^ID\s+STATE/.test(lines[0] ?? '') ? lines : undefined;
    });
    expect(list[1]).toContain('no agents yet');
    expect(await vim.lua<boolean>("return require('cairn').daemon_up()")).toBe(true);
  });

  it('runs the whole loop of seed 001: edit and save, :Cairn spawn (a model writes the program), ghost text, <Leader>a, the result on screen', async () => {
    const ollama: ScriptedOllama = await startScriptedOllama([
      programAnswer(
        [
          "const text = await read_file('src/greet.js');",
          "await write_file('src/greet.js', text.replace(\"return 'hello';\", \"return 'hello, ' + name;\"));",
          "await submit_result('greet by name', ['src/greet.js']);",
        ].join('\n'),
      ),
    ]);
    try {
      project = await startDaemonProject(undefined, { ollamaHost: ollama.host });
      vim = await startNvim(binary, project.root, project.env);
      await vim.nvim.command('edit src/greet.js');
      await until('the bridge to reach the daemon', async () =>
        (await vim!.lua<boolean>("return require('cairn').daemon_up()")) ? true : undefined,
      );
      await vim.nvim.command('5s/42/43/ | write');
      await until('the save in stable.db', async () => {
        const agents = await project!.client.sync();
        return agents.files > 0 && project!.read('src/greet.js').includes('43') ? true : undefined;
      });
      await vim.nvim.command('Cairn spawn greet people by name');
      await until('the spawn told', async () => (/spawned \S+: greet people by name/.test(await messages(vim!)) ? true : undefined));
      await until('ghost text', async () =>
        (await cairnMarks(vim!)).some((m) => m.virtLines.some((l) => l.includes("'hello, ' + name"))) ? true : undefined,
      );
      await vim.nvim.input('\\a');
      await until('the result in the buffer', async () =>
        (await vim!.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'))[1] === "  return 'hello, ' + name;"
          ? true
          : undefined,
      );
      const disk = project.read('src/greet.js');
      expect(disk).toContain("return 'hello, ' + name;");
      expect(disk).toContain('answer = 43;');
      expect(ollama.requests.some((r) => r.path === '/api/chat' || r.path === '/api/generate')).toBe(true);
    } finally {
      await ollama.close();
    }
  });
});

const neovims = lookUpNeovims();
const anyNeovim = neovims.find((l) => l.found) ?? neovims[0]!;

describeWithTools('the real terminal UI', [anyNeovim, lookUpTool(TMUX)], (binary) => {
  let project: DaemonProject | undefined;
  const server = `cairn-test-${process.pid}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', server, ...args], { encoding: 'utf8', env: { ...process.env, ...project?.env } });

  afterEach(async () => {
    spawnSync('tmux', ['-L', server, 'kill-server']);
    await project?.close();
  });

  it('shows ghost text in Neovim running in tmux, and <Leader>a writes the file', async () => {
    project = await startDaemonProject();
    const command = `TERM=xterm-256color ${binary.path} --clean --cmd 'set rtp^=${PLUGIN_DIR}' src/greet.js`;
    tmux('new-session', '-d', '-x', '100', '-y', '24', '-c', project.root, command);
    const screen = () => tmux('capture-pane', '-p');
    await until('Neovim on screen', async () => (screen().includes('export function greet') ? true : undefined));
    const agent = await project.propose('add bye', BYE);
    const shown = await until('ghost text on screen', async () => {
      const s = screen();
      return s.includes("export const bye = () => 'bye';") && s.includes(`cairn ${agent.id}`) ? s : undefined;
    });
    expect(shown).toContain('add bye');
    tmux('send-keys', '\\', 'a');
    await until('the file on disk', async () => (project!.read('src/greet.js').includes('bye') ? true : undefined));
    await until('the buffer reloaded on screen', async () =>
      !screen().includes(`cairn ${agent.id}`) && screen().includes('export const bye') ? true : undefined,
    );
    expect((await project.client.agent(agent.id)).state).toBe('accepted');
  });
});
