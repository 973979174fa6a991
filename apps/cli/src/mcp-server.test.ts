import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, type McpSession } from './test-support/mcp-client.js';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject | undefined;
const sessions: McpSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.close().catch(() => undefined);
  project?.cleanup();
  project = undefined;
});

const FILES = {
  'src/a.js': 'export const word = "old";\n',
  'src/b.js': 'export const other = 2;\n',
  '.env': 'SECRET=hunter2\n',
  'README.md': '# demo\n',
};

/** A git repository with FILES committed, and an edit left uncommitted. */
function gitProject(): CliProject {
  const p = makeCliProject(FILES);
  execFileSync('git', ['init', '-q'], { cwd: p.root });
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '-A'], { cwd: p.root });
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'], { cwd: p.root });
  p.write('README.md', '# demo\nan uncommitted line\n');
  return p;
}

async function connect(p: CliProject, options: Parameters<typeof connectMcp>[1] = {}): Promise<McpSession> {
  const session = await connectMcp(p, options);
  sessions.push(session);
  return session;
}

describe('cairn mcp: environments for MCP clients', () => {
  it('works over the working tree as it is; every call is governed and journaled; the tree changes only on accept', async () => {
    project = gitProject();
    const mcp = await connect(project);
    const { tools } = await mcp.client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['environment_open', 'read_file', 'write_file', 'edit_file', 'delete_file', 'move_file', 'list_dir'])
      expect(names).toContain(name);
    for (const name of ['search_files', 'search_content', 'run_command', 'show_diff', 'submit_result']) expect(names).toContain(name);
    // the table's doc reaches the client's model, with the environment argument added
    const write = tools.find((tool) => tool.name === 'write_file')!;
    expect(write.description).toMatch(/Creates or replaces a file/);
    expect(write.inputSchema.required).toEqual(['environment', 'path', 'content']);

    const env = await mcp.open('tidy the demo');
    // the uncommitted edit is there
    expect((await mcp.call('read_file', { environment: env, path: 'README.md' })).text).toContain('an uncommitted line');
    expect(await mcp.call('write_file', { environment: env, path: 'src/new.js', content: 'export const added = 1;\n' })).toEqual({
      text: 'true',
      isError: false,
    });
    expect((await mcp.call('edit_file', { environment: env, path: 'src/a.js', old_text: '"old"', new_text: '"new"' })).isError).toBe(false);
    const missing = await mcp.call('edit_file', { environment: env, path: 'src/a.js', old_text: 'absent text', new_text: 'x' });
    expect(missing).toMatchObject({ isError: true, text: expect.stringMatching(/old_text does not occur in src\/a\.js/) });
    expect((await mcp.call('move_file', { environment: env, source: 'src/b.js', target: 'lib/b.js' })).isError).toBe(false);
    expect(JSON.parse((await mcp.call('list_dir', { environment: env, path: 'lib' })).text)).toEqual(['b.js']);
    expect(JSON.parse((await mcp.call('search_files', { environment: env, glob: 'src/**/*.js' })).text)).toEqual([
      'src/a.js',
      'src/new.js',
    ]);
    const found = JSON.parse((await mcp.call('search_content', { environment: env, pattern: 'new' })).text) as { path: string }[];
    expect(found.map((hit) => hit.path)).toEqual(['src/a.js']);

    // protected paths are refused, with the reason sent back
    const secret = await mcp.call('read_file', { environment: env, path: '.env' });
    expect(secret).toMatchObject({ isError: true, text: expect.stringMatching(/\.env.*excluded from reading/) });
    expect(JSON.parse((await mcp.call('list_dir', { environment: env })).text)).not.toContain('.env');
    const git = await mcp.call('write_file', { environment: env, path: '.git/config', content: 'x' });
    expect(git).toMatchObject({ isError: true, text: expect.stringMatching(/excluded from writing/) });
    const outside = await mcp.call('write_file', { environment: env, path: '../escape.txt', content: 'x' });
    expect(outside).toMatchObject({ isError: true, text: expect.stringMatching(/not a project-relative path/) });
    expect(existsSync(join(project.base, 'escape.txt'))).toBe(false);

    // a command sees the environment (the new file, the move), not .env; its writes land in the overlay
    const ran = await mcp.call('run_command', {
      environment: env,
      command: 'cat src/new.js; ls -a; cat .env; echo made > made.txt; echo evil > .git/evil; exit 3',
    });
    expect(ran.isError).toBe(false);
    expect(ran.text).toMatch(/^exit code 3; 1 path changed in the environment: made\.txt/);
    expect(ran.text).toContain('export const added = 1;');
    expect(ran.text).toMatch(/cat: \.env: No such file/);
    expect(ran.text).toMatch(/refused: .*\.git\/evil.*excluded from writing/);

    const diff = (await mcp.call('show_diff', { environment: env })).text;
    for (const path of ['src/new.js', 'src/a.js', 'made.txt', 'lib/b.js']) expect(diff).toContain(path);
    const resources = await mcp.client.listResources();
    expect(resources.resources.map((r) => r.uri)).toEqual([`cairn://environment/${env}/diff`, `cairn://environment/${env}/journal`]);
    const journal = await mcp.client.readResource({ uri: `cairn://environment/${env}/journal` });
    expect(JSON.stringify(journal.contents)).toContain('fs.write');

    // nothing reached the working tree
    expect(readFileSync(join(project.root, 'src/a.js'), 'utf8')).toContain('"old"');
    for (const path of ['src/new.js', 'made.txt', 'lib/b.js', '.git/evil']) expect(existsSync(join(project.root, path))).toBe(false);

    expect((await mcp.call('submit_result', { environment: env, summary: 'renamed the word' })).isError).toBe(false);
    const after = await mcp.call('write_file', { environment: env, path: 'late.txt', content: 'x' });
    expect(after).toMatchObject({ isError: true, text: expect.stringMatching(/has ended \(reviewing: renamed the word\)/) });

    const listed = resultOf(await project.run(['ls', '--json'])).agents as { id: string; state: string; kind: string }[];
    expect(listed).toContainEqual(expect.objectContaining({ id: env, state: 'reviewing', kind: 'mcp:cairn-test' }));
    const log = await project.run(['log', env]);
    expect(log.stdout).toMatch(/fs\.read\s+\.env\s+denied/);
    expect(log.stdout).toMatch(/fs\.write\s+\.git\/config\s+denied/);
    expect(log.stdout).toMatch(/fs\.write\s+src\/new\.js\s+ok/);
    const replay = await project.run(['replay', env]);
    expect(replay.stdout, replay.stderr).toMatch(/^reproduced: /);

    const accepted = await project.run(['accept', env]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(readFileSync(join(project.root, 'src/a.js'), 'utf8')).toContain('"new"');
    expect(readFileSync(join(project.root, 'made.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(join(project.root, 'src/b.js'))).toBe(false);
    expect(readFileSync(join(project.root, 'README.md'), 'utf8')).toContain('an uncommitted line');
  });

  it('ten environments at once each keep their own changes, and replay rebuilds each', async () => {
    project = gitProject();
    const mcp = await connect(project);
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => mcp.open(`task ${i}`)));
    expect(new Set(ids).size).toBe(10);
    await Promise.all(
      ids.map(async (env, i) => {
        expect((await mcp.call('write_file', { environment: env, path: `out/${i}.txt`, content: `${i}\n` })).isError).toBe(false);
        expect((await mcp.call('edit_file', { environment: env, path: 'src/a.js', old_text: 'old', new_text: `v${i}` })).isError).toBe(
          false,
        );
        expect((await mcp.call('run_command', { environment: env, command: `echo ${i} > ran-${i}.txt` })).text).toMatch(/^exit code 0/);
      }),
    );
    for (const [i, env] of ids.entries()) {
      const files = JSON.parse((await mcp.call('search_files', { environment: env, glob: '**/*.txt' })).text) as string[];
      expect(files).toEqual([`out/${i}.txt`, `ran-${i}.txt`]);
      expect((await mcp.call('read_file', { environment: env, path: 'src/a.js' })).text).toContain(`"v${i}"`);
    }
    await Promise.all(ids.map((env) => mcp.call('submit_result', { environment: env, summary: 'done' })));
    for (const env of ids) {
      const replay = await project.run(['replay', env]);
      expect(replay.stdout, replay.stderr).toMatch(/^reproduced: /);
    }
  });

  it('a client that leaves keeps its environment reviewable; another client cannot use it while it is held, and may continue it after', async () => {
    project = gitProject();
    const first = await connect(project, { name: 'first' });
    const second = await connect(project, { name: 'second' });
    const env = await first.open('held by the first');
    expect((await first.call('write_file', { environment: env, path: 'one.txt', content: '1\n' })).isError).toBe(false);
    const refused = await second.call('write_file', { environment: env, path: 'two.txt', content: '2\n' });
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/in use by another client's session/) });
    const reopen = await second.call('environment_open', { environment: env });
    expect(reopen).toMatchObject({ isError: true, text: expect.stringMatching(/in use by another client's session/) });

    await first.close();
    await expect
      .poll(async () => (resultOf(await project!.run(['status', env, '--json'])).agent as { state: string }).state, {
        timeout: 30_000,
      })
      .toBe('reviewing');
    const status = resultOf(await project.run(['status', env, '--json'])).agent as { summary: string };
    expect(status.summary).toMatch(/unsubmitted: the client disconnected/);

    expect((await second.call('environment_open', { environment: env })).text).toMatch(/open again/);
    expect((await second.call('read_file', { environment: env, path: 'one.txt' })).text).toBe('1\n');
    expect((await second.call('write_file', { environment: env, path: 'two.txt', content: '2\n' })).isError).toBe(false);
    expect((await second.call('submit_result', { environment: env, summary: 'both' })).isError).toBe(false);
    const diff = await project.run(['diff', env, '--no-pager']);
    expect(diff.stdout).toContain('one.txt');
    expect(diff.stdout).toContain('two.txt');
    const replay = await project.run(['replay', env]);
    expect(replay.stdout, replay.stderr).toMatch(/^reproduced: /);
  });

  it("runs a declared check on the environment's changes, and the project's checks run on its proposal once submitted", async () => {
    project = gitProject();
    project.write('.cairn/config.json', JSON.stringify({ checks: { test: ['sh', '-c', 'grep -q new src/a.js && echo passed'] } }));
    const mcp = await connect(project);
    const check = (await mcp.client.listTools()).tools.find((tool) => tool.name === 'run_check');
    expect(check?.description).toMatch(/The checks: "test"\.$/);
    const env = await mcp.open('make the check pass');
    const before = JSON.parse((await mcp.call('run_check', { environment: env, name: 'test' })).text) as { ok: boolean };
    expect(before.ok).toBe(false);
    await mcp.call('edit_file', { environment: env, path: 'src/a.js', old_text: '"old"', new_text: '"new"' });
    const after = JSON.parse((await mcp.call('run_check', { environment: env, name: 'test' })).text) as { ok: boolean; output: string };
    expect(after).toMatchObject({ ok: true, output: expect.stringContaining('passed') });
    expect((await mcp.call('run_check', { environment: env, name: 'lint' })).text).toMatch(/no check named "lint"|unknown check|lint/);
    await mcp.call('submit_result', { environment: env, summary: 'made it pass' });
    await expect
      .poll(async () => (resultOf(await project!.run(['checks', env, '--json'])).checks as { status: string }[] | undefined)?.[0]?.status, {
        timeout: 60_000,
      })
      .toBe('passed');
    expect((await project.run(['replay', env])).stdout).toMatch(/^reproduced: /);
  });

  it('mcp config prints or writes each client’s configuration, merged with what is there, and says which it did', async () => {
    project = makeCliProject(FILES);
    const printed = await project.run(['mcp', 'config', 'cursor']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({
      mcpServers: { cairn: { command: expect.stringMatching(/cairn/), args: ['mcp', '--project', project.root] } },
    });
    expect(printed.stderr).toMatch(/printed cursor's configuration; it belongs in .*\.cursor\/mcp\.json/);
    expect(existsSync(join(project.root, '.cursor/mcp.json'))).toBe(false);

    project.write('.gemini/settings.json', JSON.stringify({ theme: 'dark', mcpServers: { other: { command: 'other' } } }));
    const gemini = await project.run(['mcp', 'config', 'gemini', '--write']);
    expect(gemini.stderr).toMatch(/wrote the cairn server into .*\.gemini\/settings\.json/);
    const settings = JSON.parse(readFileSync(join(project.root, '.gemini/settings.json'), 'utf8'));
    expect(settings).toMatchObject({
      theme: 'dark',
      mcpServers: { other: { command: 'other' }, cairn: { args: ['mcp', '--project', project.root], timeout: 1_800_000 } },
    });

    const codexHome = join(project.base, 'codex');
    const codex = await project.run(['mcp', 'config', 'codex', '--write'], { env: { CODEX_HOME: codexHome } });
    expect(codex.code, codex.stderr).toBe(0);
    const toml = readFileSync(join(codexHome, 'config.toml'), 'utf8');
    expect(toml).toMatch(/^\[mcp_servers\.cairn\]\ncommand = ".*cairn.*"\nargs = \["mcp", "--project", ".*"\]\ntool_timeout_sec = 1800\n$/);
    const again = await project.run(['mcp', 'config', 'codex', '--write'], { env: { CODEX_HOME: codexHome } });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already has an \[mcp_servers\.cairn\] table/);

    project.write('.mcp.json', '{ not json');
    const broken = await project.run(['mcp', 'config', 'claude', '--write']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toMatch(/\.mcp\.json is not a JSON object Cairn can add to/);
    expect(readFileSync(join(project.root, '.mcp.json'), 'utf8')).toBe('{ not json');
    const unknown = await project.run(['mcp', 'config', 'vim']);
    expect(unknown.stderr).toMatch(/unknown MCP client "vim" \(one of claude, codex, gemini, cursor\)/);
  });
});
