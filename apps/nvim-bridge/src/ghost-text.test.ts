import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cairnMarks, bufferLines, messages, screenText } from './test-support/inspect.js';
import { nvimBinaries, startNvim, until, type EmbeddedNvim } from './test-support/nvim.js';
import { GREET, replaceProgram, startDaemonProject, type DaemonProject } from './test-support/project.js';

const { found } = nvimBinaries();

describe.each(found.map((b) => [`${b.label} ${b.version}`, b] as const))('ghost text in Neovim %s', (_label, binary) => {
  let project: DaemonProject;
  let vim: EmbeddedNvim;

  beforeEach(async () => {
    project = await startDaemonProject();
    vim = await startNvim(binary, project.root, project.env);
    await vim.nvim.command('edit src/greet.js');
    await until('the bridge to reach the daemon', async () =>
      (await vim.lua<boolean>("return require('cairn').daemon_up()")) ? true : undefined,
    );
  });

  afterEach(async () => {
    await vim?.quit();
    await project?.close();
  });

  it('draws a proposal when the agent submits, accepts it with <Leader>a, and u undoes the reload', async () => {
    const agent = await project.propose(
      'greet by name',
      replaceProgram('src/greet.js', [
        ["  return 'hello';", "  return 'hello, ' + name;"],
        ['export const answer = 42;\n', "export const answer = 42;\nexport const bye = () => 'bye';\n"],
      ]),
    );
    const marks = await until('ghost text', async () => {
      const m = await cairnMarks(vim);
      return m.some((x) => x.virtLines.some((l) => l.includes('bye'))) ? m : undefined;
    });
    expect(marks.find((m) => m.virtText.includes(agent.id))?.virtText).toContain('greet by name');
    expect(marks.some((m) => m.hl === 'CairnDelete' || m.pos === 'inline')).toBe(true);
    expect((await screenText(vim)).join('\n')).toContain("export const bye = () => 'bye';");

    await vim.nvim.input('\\a');
    await until('the file on disk', async () => (project.read('src/greet.js').includes('bye') ? true : undefined));
    await until('the buffer reloaded', async () =>
      (await bufferLines(vim)).includes("export const bye = () => 'bye';") ? true : undefined,
    );
    expect(await cairnMarks(vim)).toEqual([]);
    expect((await project.client.agent(agent.id)).state).toBe('accepted');

    await vim.nvim.input('u');
    await until('the reload undone', async () => ((await bufferLines(vim)).join('\n') + '\n' === GREET ? true : undefined));
    expect(project.read('src/greet.js')).toContain('bye');
    expect(await messages(vim)).toContain(`accepted ${agent.id}`);
  });
});
