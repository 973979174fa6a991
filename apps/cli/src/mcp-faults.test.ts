import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, type McpSession } from './test-support/mcp-client.js';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  project?.cleanup();
  project = undefined;
});

const FILES = { 'src/a.js': 'export const word = "old";\n', '.env': 'SECRET=hunter2\n' };

async function connect(p: CliProject, options: Parameters<typeof connectMcp>[1] = {}): Promise<McpSession> {
  const session = await connectMcp(p, options);
  closers.push(() => session.close());
  return session;
}

/** The working tree's files, for "nothing of the user's changed". */
function treeOf(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (['.agentfs', '.cairn', '.git'].includes(entry.name)) continue;
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else files[`${prefix}${entry.name}`] = readFileSync(join(dir, entry.name), 'utf8');
    }
  };
  walk(root, '');
  return files;
}

describe('cairn mcp: bad input and faults', () => {
  it('answers malformed JSON-RPC with its error, and the session goes on', async () => {
    project = makeCliProject(FILES);
    const child = spawn(process.execPath, [CAIRN_BIN, 'mcp', '--project', project.root], {
      env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    closers.push(async () => {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const answer = async (line: string) => {
      child.stdin.write(`${line}\n`);
      return JSON.parse((await lines.next()).value as string) as {
        id: unknown;
        error?: { code: number; message: string };
        result?: unknown;
      };
    };
    expect(await answer('this is not json')).toMatchObject({
      id: null,
      error: { code: -32700, message: expect.stringMatching(/not JSON/) },
    });
    expect(await answer('{"hello": "world"}')).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await answer('{"jsonrpc":"2.0","id":"x","result":{},"error":{}}')).toMatchObject({ error: { code: -32600 } });
    const init = await answer(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    expect(init).toMatchObject({ id: 1, result: { serverInfo: { name: 'cairn' } } });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    expect(await answer('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}')).toMatchObject({
      id: 2,
      error: { code: -32602, message: expect.stringMatching(/^unknown tool "no_such_tool"; the tools are environment_open/) },
    });
    expect(await answer('{"jsonrpc":"2.0","id":3,"method":"tools/list"}')).toMatchObject({ id: 3, result: { tools: expect.any(Array) } });
  });

  it('refuses bad arguments, paths outside the project, huge messages and huge writes, with nothing of the user changed', async () => {
    project = makeCliProject(FILES);
    const before = treeOf(project.root);
    const mcp = await connect(project);
    const env = await mcp.open('try bad input');
    expect(await mcp.call('write_file', { environment: env, path: 3, content: 'x' })).toEqual({
      isError: true,
      text: 'write_file: path must be a string',
    });
    expect((await mcp.call('write_file', { environment: env, path: 'a', content: 'x', mode: 1 })).text).toMatch(/has no argument "mode"/);
    expect((await mcp.call('read_file', { path: 'src/a.js' })).text).toBe('read_file needs the argument "environment"');
    expect((await mcp.call('read_file', { environment: 'nope', path: 'src/a.js' })).text).toMatch(/there is no environment nope/);
    for (const path of ['/etc/passwd', '../x', 'src/../../x', 'a\\b'])
      expect(await mcp.call('write_file', { environment: env, path, content: 'x' })).toMatchObject({ isError: true });
    // a message larger than the server takes is refused to its request; the session goes on
    await expect(mcp.call('write_file', { environment: env, path: 'huge.txt', content: 'x'.repeat(65 * 1024 * 1024) })).rejects.toThrow(
      /more than the \d+ bytes one message may be/,
    );
    expect((await mcp.call('write_file', { environment: env, path: 'big.txt', content: 'x'.repeat(9 * 1024 * 1024) })).text).toMatch(
      /more than one call carries/,
    );
    const overGrant = await mcp.call('write_file', { environment: env, path: 'big.txt', content: 'x'.repeat(5 * 1024 * 1024) });
    expect(overGrant).toMatchObject({ isError: true, text: expect.stringMatching(/^write_file: arguments are larger than 4194304 bytes/) });
    // a gigabyte written by a command is hashed and refused, never kept
    const gigabyte = await mcp.call('run_command', { environment: env, command: 'head -c 1073741824 /dev/zero > big.bin; echo wrote' });
    expect(gigabyte.text).toMatch(/refused: .*big\.bin/);
    expect((await mcp.call('file_exists', { environment: env, path: 'big.bin' })).text).toBe('false');
    expect((await mcp.call('write_file', { environment: env, path: 'small.txt', content: 'ok\n' })).isError).toBe(false);
    await mcp.call('submit_result', { environment: env, summary: 'bad input' });
    expect(treeOf(project.root)).toEqual(before);
    expect((await project.run(['replay', env])).stdout).toMatch(/^reproduced: /);
  });

  it('a client that sends a thousand calls at once gets an answer to each; calls over what an environment keeps waiting are refused', async () => {
    project = makeCliProject(FILES);
    const mcp = await connect(project);
    const env = await mcp.open('flood');
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => mcp.call('write_file', { environment: env, path: `flood/${i}.txt`, content: `${i}\n` })),
    );
    const refused = answers.filter((a) => a.isError);
    expect(refused.length).toBeGreaterThan(0);
    for (const a of refused) expect(a.text).toMatch(/calls waiting; wait for their answers before sending more/);
    const written = answers.flatMap((a, i) => (a.isError ? [] : [`flood/${i}.txt`]));
    expect(written.length).toBeGreaterThanOrEqual(64);
    const listed = JSON.parse((await mcp.call('search_files', { environment: env, glob: 'flood/*' })).text) as string[];
    expect(listed.sort()).toEqual(written.sort());
    await mcp.call('submit_result', { environment: env, summary: 'flood' });
    expect((await project.run(['replay', env])).stdout).toMatch(/^reproduced: /);
  });

  it('goes on while the daemon stops and starts again under the session', async () => {
    project = makeCliProject(FILES);
    expect((await project.run(['up', '--detach'])).code).toBe(0);
    closers.push(() => project!.run(['down']));
    const mcp = await connect(project);
    const env = await mcp.open('across daemon restarts');
    expect((await mcp.call('write_file', { environment: env, path: 'one.txt', content: '1\n' })).isError).toBe(false);
    expect((await project.run(['down'])).code).toBe(0);
    expect((await mcp.call('write_file', { environment: env, path: 'two.txt', content: '2\n' })).isError).toBe(false);
    expect((await project.run(['up', '--detach'])).code).toBe(0);
    expect((await mcp.call('run_command', { environment: env, command: 'echo 3 > three.txt' })).text).toMatch(/^exit code 0/);
    expect((await mcp.call('submit_result', { environment: env, summary: 'three files' })).isError).toBe(false);
    const agent = resultOf(await project.run(['status', env, '--json'])).agent as { state: string; changes: { path: string }[] };
    expect(agent.state).toBe('reviewing');
    expect(agent.changes.map((c) => c.path).sort()).toEqual(['one.txt', 'three.txt', 'two.txt']);
    expect(existsSync(join(project.root, 'one.txt'))).toBe(false);
  });

  it('an environment whose server is killed goes to review with what its calls made, when the project is next opened', async () => {
    project = makeCliProject(FILES);
    const first = await connect(project);
    const env = await first.open('killed under');
    expect((await first.call('write_file', { environment: env, path: 'kept.txt', content: 'kept\n' })).isError).toBe(false);
    const cwd = await first.call('run_command', { environment: env, command: 'pwd', cwd: 'nowhere' });
    expect(cwd).toMatchObject({ isError: true, text: 'run_command: cwd "nowhere" is not a folder of the environment' });
    expect((await first.call('run_command', { environment: env, command: 'pwd', cwd: 'src' })).text).toMatch(/\/src\n/);
    process.kill(first.pid!, 'SIGKILL');
    const second = await connect(project);
    const listed = JSON.parse((await second.call('environment_list')).text) as { id: string; state: string; summary?: string }[];
    expect(listed).toContainEqual({
      id: env,
      state: 'reviewing',
      task: 'killed under',
      summary: expect.stringMatching(/^unsubmitted: the server/),
    });
    expect((await second.call('environment_open', { environment: env })).text).toMatch(/open again/);
    expect((await second.call('read_file', { environment: env, path: 'kept.txt' })).text).toBe('kept\n');
    await second.call('submit_result', { environment: env, summary: 'after the kill' });
    expect((await project.run(['replay', env])).stdout).toMatch(/^reproduced: /);
  });

  it('a call that outlasts the hold answers "still running", and wait takes up its result', async () => {
    project = makeCliProject(FILES);
    const mcp = await connect(project, { env: { CAIRN_MCP_HOLD_MS: '1500' } });
    const env = await mcp.open('slow command');
    const first = await mcp.call('run_command', { environment: env, command: 'sleep 6; echo slept > slept.txt; echo finished' });
    expect(first.text).toMatch(/still running .*call wait with environment/);
    expect((await mcp.call('read_file', { environment: env, path: 'src/a.js' })).text).toMatch(/still running in .*call wait/);
    let waited = await mcp.call('wait', { environment: env });
    while (/still running/.test(waited.text)) waited = await mcp.call('wait', { environment: env });
    expect(waited.text).toMatch(/^exit code 0; 1 path changed in the environment: slept\.txt/);
    expect(waited.text).toContain('finished');
    expect((await mcp.call('wait', { environment: env })).text).toMatch(/nothing is running/);
  });

  it('a 90 s command completes in one call under the client’s 60 s timeout, kept alive by progress notifications', async () => {
    project = makeCliProject(FILES);
    const mcp = await connect(project);
    const env = await mcp.open('long command');
    const progress: unknown[] = [];
    const answer = await mcp.call(
      'run_command',
      { environment: env, command: 'sleep 90; echo slept > slept.txt' },
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true },
    );
    expect(answer.text).toMatch(/^exit code 0; 1 path changed in the environment: slept\.txt/);
    expect(progress.length).toBeGreaterThan(5);
  }, 300_000);
});
