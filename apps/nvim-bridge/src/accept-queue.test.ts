import { afterEach, expect, it } from 'vitest';
import { messages } from './test-support/inspect.js';
import { describeInNeovims, type EmbeddedNvim, startNvim, until } from './test-support/nvim.js';
import { type DaemonProject, replaceProgram, startDaemonProject } from './test-support/project.js';

const CHECK = ['node', '-e', 'process.exit(0)'];

/** Ghost text drawn in buffer `buf` (any extmark of the cairn namespace). */
function marksIn(vim: EmbeddedNvim, buf: number): Promise<number> {
  return vim.lua<number>(`return #vim.api.nvim_buf_get_extmarks(${buf}, vim.api.nvim_create_namespace('cairn'), 0, -1, {})`);
}

describeInNeovims('several <Leader>a in a row', (binary) => {
  let project: DaemonProject | undefined;
  let vim: EmbeddedNvim | undefined;

  afterEach(async () => {
    await vim?.quit();
    await project?.close();
  });

  // the first accept moves the tree under the second, whose checks then run again: it waits for them, never refused
  it('queue in the daemon: the second waits for its checks on the moved tree, says so, and goes in', async () => {
    project = await startDaemonProject({
      'src/one.js': 'export const one = 1;\n',
      'src/two.js': 'export const two = 2;\n',
      '.cairn/config.json': JSON.stringify({ checks: { test: { command: CHECK } } }),
    });
    const a = await project.propose('one', replaceProgram('src/one.js', [['one = 1', 'one = 1; // ONE']], 'one'));
    const b = await project.propose('two', replaceProgram('src/two.js', [['two = 2', 'two = 2; // TWO']], 'two'));
    for (const id of [a.id, b.id])
      await until(`${id}'s checks`, async () =>
        (await project!.client.checks(id)).every((c) => c.status === 'passed') ? true : undefined,
      );

    vim = await startNvim(binary, project.root, project.env);
    await vim.nvim.command('edit src/one.js | vsplit src/two.js');
    const [two, one] = [
      await vim.lua<number>('return vim.fn.bufnr("src/two.js")'),
      await vim.lua<number>('return vim.fn.bufnr("src/one.js")'),
    ];
    await until('ghost text in both buffers', async () =>
      (await marksIn(vim!, one)) > 0 && (await marksIn(vim!, two)) > 0 ? true : undefined,
    );
    // <Leader>a on two.js, then on one.js in the other window: both asked at once
    await vim.nvim.input('\\a<C-w>w\\a');
    await until('both accepted', async () => {
      const states = await Promise.all([a.id, b.id].map(async (id) => (await project!.client.agent(id)).state));
      return states.every((state) => state === 'accepted') ? true : undefined;
    });
    expect(project.read('src/one.js')).toContain('// ONE');
    expect(project.read('src/two.js')).toContain('// TWO');
    const said = await until('the accepts told', async () => {
      const text = await messages(vim!);
      return text.includes(`accepted ${a.id}`) && text.includes(`accepted ${b.id}`) ? text : undefined;
    });
    expect(said).not.toContain('still running');
    expect(said).toContain(`accept of ${a.id} waits for its checks to run on the project as it is now: test`);
  });
});
