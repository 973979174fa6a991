import { afterEach, beforeEach, expect, it } from 'vitest';
import { bufferLines, cairnMarks, messages, screenText } from './test-support/inspect.js';
import { describeInNeovims, type EmbeddedNvim, startNvim, until } from './test-support/nvim.js';
import { type DaemonProject, GREET, replaceProgram, startDaemonProject } from './test-support/project.js';

describeInNeovims('ghost text in Neovim', (binary) => {
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

  const shownState = () => vim.lua<{ agents: string[]; shown: string; hunks: number } | null>("return require('cairn').buffer_state()");

  it('takes the ghost text down while the buffer changes, draws it again on the right lines, and shows an overlap as a conflict', async () => {
    const agent = await project.propose(
      'add bye',
      replaceProgram('src/greet.js', [
        ["  return 'hello';", "  return 'hello, ' + name;"],
        ['export const answer = 42;\n', "export const answer = 42;\nexport const bye = () => 'bye';\n"],
      ]),
    );
    const rowOfBye = async () => (await cairnMarks(vim)).find((m) => m.virtLines.some((l) => l.includes('bye')))?.row;
    expect(await until('ghost text', rowOfBye)).toBe(4);
    await vim.nvim.input('ggO// one<CR>// two<Esc>');
    expect(await until('ghost text on the moved lines', async () => ((await rowOfBye()) === 6 ? 6 : undefined))).toBe(6);
    expect(project.read('src/greet.js')).toBe(GREET);

    await vim.nvim.command("4s/'hello'/'hi'/");
    const conflict = await until('the conflict shown', async () => {
      const marks = await cairnMarks(vim);
      return marks.length === 1 && marks[0]!.virtText.includes('overlaps your edits') ? marks : undefined;
    });
    expect(conflict[0]!.virtText).toContain(agent.id);
    expect(conflict[0]!.virtLines).toEqual([]);
  });

  it('refuses to accept over unsaved edits and loses nothing', async () => {
    const agent = await project.propose(
      'add bye',
      replaceProgram('src/greet.js', [['export const answer = 42;', 'export const answer = 43;']]),
    );
    await until('ghost text', async () => ((await shownState())?.hunks === 1 ? true : undefined));
    await vim.nvim.input('ggO// mine<Esc>');
    await until('the edit', async () => ((await bufferLines(vim))[0] === '// mine' ? true : undefined));
    await vim.nvim.input('\\a');
    await until('the refusal', async () => ((await messages(vim)).includes('unsaved changes') ? true : undefined));
    expect((await bufferLines(vim))[0]).toBe('// mine');
    expect(await vim.lua<boolean>('return vim.bo.modified')).toBe(true);
    expect(project.read('src/greet.js')).toBe(GREET);
    expect((await project.client.agent(agent.id)).state).toBe('reviewing');
  });

  it('accepts one hunk into the file and leaves the rest proposed; u takes the hunk back', async () => {
    await vim.lua("require('cairn').setup({ keys = { accept_hunk = '<Leader>h' } })");
    const agent = await project.propose(
      'two edits',
      replaceProgram('src/greet.js', [
        ["  return 'hello';", "  return 'hello, ' + name;"],
        ['export const answer = 42;', 'export const answer = 43;'],
      ]),
    );
    await until('two hunks', async () => ((await shownState())?.hunks === 2 ? true : undefined));
    await vim.nvim.command('2');
    await vim.nvim.input('\\h');
    await until('the hunk on disk', async () => (project.read('src/greet.js').includes("'hello, ' + name") ? true : undefined));
    expect(project.read('src/greet.js')).toContain('answer = 42;');
    expect(await until('one hunk left', async () => ((await shownState())?.hunks === 1 ? 1 : undefined))).toBe(1);
    expect((await project.client.agent(agent.id)).state).toBe('reviewing');
    await vim.nvim.input('u');
    await until('the hunk taken back in the buffer', async () => ((await bufferLines(vim))[1] === "  return 'hello';" ? true : undefined));
  });

  it('shows one agent at a time when several propose changes to a buffer, and cycles', async () => {
    const first = await project.propose('first', replaceProgram('src/greet.js', [["  return 'hello';", "  return 'hi';"]]));
    const second = await project.propose(
      'second',
      replaceProgram('src/greet.js', [['export const answer = 42;', 'export const answer = 7;']]),
    );
    const state = await until('both agents', async () => {
      const s = await shownState();
      return s !== null && s.agents.length === 2 && s.hunks > 0 ? s : undefined;
    });
    const summaries = async () => (await cairnMarks(vim)).map((m) => m.virtText).filter((t) => t.includes('cairn '));
    const before = await summaries();
    expect(before).toHaveLength(1);
    expect(before[0]).toContain(`${state.shown}:`);
    expect(before[0]).toMatch(/\[[12]\/2\]/);
    await vim.nvim.command('Cairn cycle');
    const after = await summaries();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatch(/\[[12]\/2\]/);
    expect(after[0]).not.toBe(before[0]);
    const other = state.shown === first.id ? second.id : first.id;
    expect(after[0]).toContain(`${other}:`);
  });

  it('lists agents, opens a diff, completes ids, and rejects with :Cairn', async () => {
    const agent = await project.propose('say hi', replaceProgram('src/greet.js', [["  return 'hello';", "  return 'hi';"]]));
    await until('ghost text', async () => ((await shownState())?.hunks === 1 ? true : undefined));
    expect(await vim.lua<string[]>("return vim.fn.getcompletion('Cairn ', 'cmdline')")).toEqual(
      expect.arrayContaining(['accept', 'agents', 'diff', 'reject', 'spawn', 'up']),
    );
    expect(await vim.lua<string[]>("return vim.fn.getcompletion('Cairn accept ', 'cmdline')")).toContain(agent.id);

    await vim.nvim.command('Cairn agents');
    const list = await until('the agents list', async () => {
      const lines = await bufferLines(vim);
      return lines.some((l) => l.startsWith(agent.id)) ? lines : undefined;
    });
    const row = list.findIndex((l) => l.startsWith(agent.id));
    expect(list[row]).toMatch(/reviewing\s+1\s+say hi/);
    await vim.nvim.command(String(row + 1));
    await vim.nvim.input('<CR>');
    const diff = await until('the diff window', async () => {
      const lines = await bufferLines(vim);
      return lines.some((l) => l === "+  return 'hi';") ? lines : undefined;
    });
    expect(diff).toContain("-  return 'hello';");
    expect(await vim.lua<string>('return vim.bo.filetype')).toBe('diff');

    await vim.nvim.command('only');
    await vim.nvim.command('buffer src/greet.js');
    await vim.nvim.command(`Cairn reject ${agent.id}`);
    await until('the agent rejected', async () => ((await project.client.agent(agent.id)).state === 'rejected' ? true : undefined));
    expect(await messages(vim)).toContain(`rejected ${agent.id}`);
    await until('the ghost text gone', async () => ((await cairnMarks(vim)).length === 0 ? true : undefined));
    expect(project.read('src/greet.js')).toBe(GREET);
  });

  it('shows ✓/✗ of the automatic checks in the summary, and :Cairn checks opens their output', async () => {
    project.write(
      '.cairn/config.json',
      JSON.stringify({ checks: { greets: { command: ['sh', '-c', "grep -q hello src/greet.js || { echo 'no hello'; exit 4; }"] } } }),
    );
    const agent = await project.propose('say hi', replaceProgram('src/greet.js', [["  return 'hello';", "  return 'hi';"]]));
    const summary = await until('the failed check in the summary', async () => {
      const marks = await cairnMarks(vim);
      return marks.find((m) => m.virtText.includes(agent.id) && m.virtText.includes('✗ greets'))?.virtText;
    });
    expect(summary).toContain('say hi');
    await vim.nvim.command(`Cairn checks ${agent.id}`);
    const lines = await until('the checks window', async () => {
      const shown = await bufferLines(vim);
      return shown.some((l) => l.startsWith('✗ greets')) ? shown : undefined;
    });
    expect(lines).toEqual(['✗ greets  failed (exit 4)', '', '── greets ──', 'no hello']);
  });

  it('counts the files a proposal changes, not the folder it makes for a new one', async () => {
    const program = replaceProgram('src/greet.js', [["  return 'hello';", "  return 'hi';"]]).replace(
      'await submit_result(',
      "await write_file('notes/todo.md', '- greet by name\\n');\nawait submit_result(",
    );
    const agent = await project.propose('say hi, with a note', program);
    expect((await project.client.agent(agent.id)).changes?.map((c) => c.kind).sort()).toEqual(['dir', 'file', 'file']);
    await until('the proposal announced', async () =>
      (await messages(vim)).includes(`${agent.id} proposes changes to 2 files`) ? true : undefined,
    );
    await vim.nvim.command('Cairn agents');
    const row = await until('the agents list', async () => (await bufferLines(vim)).find((l) => l.startsWith(agent.id)));
    expect(row).toMatch(/reviewing\s+2\s+say hi, with a note/);
  });

  it(':checkhealth cairn reports Neovim, Node, the bridge and the daemon', async () => {
    // The bridge is asked with a short bound; on a busy machine a later check gets the answer.
    const report = await until('the bridge in the report', async () => {
      await vim.nvim.command('checkhealth cairn');
      const text = (await bufferLines(vim)).join('\n');
      return text.includes('bridge running') ? text : undefined;
    });
    expect(report).toContain(`Neovim ${binary.version.replace(/-.*$/, '')}`);
    expect(report).toContain(`Node ${process.version}`);
    expect(report).toMatch(/bridge running \(pid \d+\)/);
    expect(report).toContain('daemon up');
  });
});
