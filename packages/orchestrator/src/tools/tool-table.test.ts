import { describe, expect, it } from 'vitest';
import { makeRunFixture } from '../test-support/run-fixture.js';
import { buildToolbox, renderToolDeclarations, TOOL_NAMES, TOOLS } from './tool-table.js';

const FILES = { 'src/a.js': 'const a = 1;\n', 'src/b.js': 'const b = 2;\n', '.env': 'SECRET=1\n', 'README.md': '# hi\n' };

describe('the tool table', () => {
  it('gives the sandbox exactly the tools the prompt declares, by the same names', () => {
    const declared = (lang: 'js' | 'py', reviewer: boolean, checks: string[] = ['test']) =>
      [...renderToolDeclarations(lang, reviewer, checks).matchAll(lang === 'js' ? /declare function (\w+)\(/g : /^def (\w+)\(/gm)].map(
        (m) => m[1],
      );
    expect(declared('js', false)).toEqual(TOOL_NAMES);
    expect(declared('py', false)).toEqual(TOOL_NAMES);
    expect(declared('js', false, [])).toEqual(TOOL_NAMES.filter((name) => name !== 'run_check'));
    expect(renderToolDeclarations('js', false, ['test', 'lint'])).toMatch(
      /The checks: "test", "lint"\. \*\/\ndeclare function run_check\(name: string\)/,
    );
    expect(declared('js', true)).toEqual(expect.arrayContaining(['read_file', 'get_proposal', 'decide']));
    expect(declared('js', true)).not.toContain('write_file');
    expect(Object.keys(buildToolbox(makeRunFixture({}).ctx)).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    expect(renderToolDeclarations('js')).toContain('declare function move_file(source: string, target: string): Promise<true>;');
    expect(renderToolDeclarations('py')).toContain('def move_file(source: str, target: str) -> bool:');
    expect(renderToolDeclarations('py')).toContain("def list_dir(path: str = '.') -> list[str]:");
  });
});

describe('the toolbox', () => {
  it('reads, writes, moves and deletes through the overlay, each call a journaled effect with an event', async () => {
    await using run = makeRunFixture(FILES);
    const tools = buildToolbox(run.ctx);
    expect(await tools.read_file!('src/a.js')).toBe('const a = 1;\n');
    expect(await tools.file_exists!('src/nope.js')).toBe(false);
    expect(await tools.write_file!('src/c.js', 'const c = 3;\n')).toBe(true);
    expect(await tools.move_file!('src/b.js', 'lib/b.js')).toBe(true);
    expect(await tools.delete_file!('README.md')).toBe(true);
    expect(await tools.list_dir!('src')).toEqual(['a.js', 'c.js']);
    expect(await tools.search_files!('**/*.js')).toEqual(['lib/b.js', 'src/a.js', 'src/c.js']);
    expect(await tools.search_content!('const [bc]')).toEqual([
      { path: 'lib/b.js', line: 1, text: 'const b = 2;' },
      { path: 'src/c.js', line: 1, text: 'const c = 3;' },
    ]);
    expect(run.overlay.changes().map((c) => `${c.status} ${c.path}`)).toEqual([
      'deleted README.md',
      'added lib',
      'added lib/b.js',
      'deleted src/b.js',
      'added src/c.js',
    ]);
    const kinds = run.journal
      .entries()
      .filter((e) => e.kind === 'EffectQueued')
      .map((e) => (e.body as { kind: string }).kind);
    expect(kinds).toEqual(['fs.read', 'fs.read', 'fs.write', 'fs.write', 'fs.write', 'fs.list', 'fs.search', 'fs.search']);
    const called = run.events.flatMap((e) => (e.type === 'agent.tool-called' ? [[e.tool, e.path, e.pattern]] : []));
    expect(called).toEqual([
      ['read_file', 'src/a.js', undefined],
      ['file_exists', 'src/nope.js', undefined],
      ['write_file', 'src/c.js', undefined],
      ['move_file', 'src/b.js', undefined],
      ['delete_file', 'README.md', undefined],
      ['list_dir', 'src', undefined],
      ['search_files', '', '**/*.js'],
      ['search_content', '', 'const [bc]'],
    ]);
  });

  it('refuses protected paths, paths out of the project and wrong arguments with one catchable error each', async () => {
    await using run = makeRunFixture(FILES);
    const tools = buildToolbox(run.ctx);
    await expect(async () => tools.read_file!('.env')).rejects.toThrow(/^read_file: .*\.env/);
    await expect(async () => tools.write_file!('.git/config', 'x')).rejects.toThrow(/^write_file: /);
    await expect(async () => tools.read_file!('../outside.txt')).rejects.toThrow(/^read_file: /);
    await expect(async () => tools.write_file!('src/x.js', 42)).rejects.toThrow('write_file: content must be a string, not a number');
    await expect(async () => tools.search_files!(undefined)).rejects.toThrow('search_files: glob must be a string, not nothing');
    await expect(async () => tools.submit_result!('done', 'src/a.js')).rejects.toThrow(
      'submit_result: changed_files must be a list of paths',
    );
    await expect(async () => tools.decide!('do:merge')).rejects.toThrow(/^decide: only a reviewer agent decides/);
    expect(run.events.some((e) => e.type === 'agent.denied' || (e.type === 'agent.tool-called' && !e.ok))).toBe(true);
    expect(run.overlay.changes()).toEqual([]);
  });

  it('refuses to read a file that is not UTF-8 text, as a binary one, and leaves it out of content searches', async () => {
    const latin1 = Uint8Array.from([...Buffer.from('const caf'), 0xe9, ...Buffer.from(" = 'cafe';\n")]);
    await using run = makeRunFixture({ ...FILES, 'src/latin1.js': latin1, 'src/blob.bin': Uint8Array.from([1, 0, 2]) });
    const tools = buildToolbox(run.ctx);
    await expect(async () => tools.read_file!('src/latin1.js')).rejects.toThrow(
      'read_file: src/latin1.js is not UTF-8 text (21 bytes); the tool functions read and write UTF-8, so it is left as it is',
    );
    await expect(async () => tools.read_file!('src/blob.bin')).rejects.toThrow('read_file: src/blob.bin is a binary file (3 bytes)');
    expect(await tools.search_content!('const')).toEqual([
      { path: 'src/a.js', line: 1, text: 'const a = 1;' },
      { path: 'src/b.js', line: 1, text: 'const b = 2;' },
    ]);
    expect(run.overlay.changes()).toEqual([]);
  });

  it('journals log, get_task and submit_result, and keeps the submission for the runner', async () => {
    await using run = makeRunFixture(FILES);
    const tools = buildToolbox(run.ctx);
    expect(await tools.get_task!()).toBe('the task');
    expect(await tools.log!({ step: 1 })).toBe(true);
    expect(await tools.submit_result!('did it', ['src/a.js'])).toBe(true);
    expect(run.ctx.submission).toEqual({ summary: 'did it', changedFiles: ['src/a.js'] });
    expect(run.events).toContainEqual(expect.objectContaining({ type: 'agent.log', agentId: 'a1b2', message: '{"step":1}' }));
    const called = run.journal
      .entries()
      .filter((e) => (e.body as { schema?: string }).schema === 'cairn/ToolCalled@1')
      .map((e) => (e.body as { value: { tool: string } }).value.tool);
    expect(called).toEqual(['get_task', 'log', 'submit_result']);
  });

  it('lets a reviewer read its proposal and decide once, and nothing else', async () => {
    await using run = makeRunFixture(FILES, { reviewer: true });
    run.ctx.review = { reviews: 'c3d4', proposal: () => ({ agent: 'c3d4', task: 't', summary: 's', changes: [], diff: '', files: [] }) };
    const tools = buildToolbox(run.ctx);
    expect(await tools.get_proposal!()).toMatchObject({ agent: 'c3d4' });
    await expect(async () => tools.write_file!('src/a.js', 'x')).rejects.toThrow(/^write_file: /);
    await expect(async () => tools.decide!('do:merge:now')).rejects.toThrow(/^decide: /);
    expect(await tools.decide!('do:merge', 'fine')).toBe(true);
    expect(run.ctx.review.decision).toEqual({ decision: 'do:merge', note: 'fine' });
    await expect(async () => tools.decide!('defer:later')).rejects.toThrow('decide: already decided do:merge; a reviewer decides once');
  });
});
