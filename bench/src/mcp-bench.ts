import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openProject, type Project } from '@cairn/orchestrator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { committedTree, git } from './fixtures.js';
import { median, report, timeOnce, timeSideBySide, WAIT_LIMIT_MS, within } from './measure.js';
import type { BenchRow } from './storage-bench.js';

/** The `cairn` binary as an MCP client starts it. */
const CAIRN = fileURLToPath(new URL('../../apps/cli/bin/cairn.mjs', import.meta.url));

/** A file every generated tree has (the first one `generateTree` writes): what each round reads. */
const READ_PATH = 'pkg0/mod0/part0/file0.ts';

/** How long a timed call may take before the bench gives up on it (the MCP client's own default). */
const CALL_TIMEOUT_MS = 60_000;

/** Sizes of the MCP bench: tree sizes in files and paired rounds for the open figure; the tree, writes and rounds for the write figure. */
export interface McpBenchSize {
  trees: readonly number[];
  rounds: number;
  writesTree: number;
  writes: number;
  writeRounds: number;
}

/**
 * `cairn mcp` driven by the official MCP client over stdio, the server running: environment_open → the first
 * tool result (a read_file in it) against `git worktree add` of the same committed tree, at each tree size; and
 * one governed write_file through MCP against the same write made by a program agent run in process.
 */
export async function benchMcp(work: string, size: McpBenchSize): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const files of size.trees) rows.push(await benchOpen(work, files, size.rounds));
  rows.push(await benchWrites(work, size));
  return rows;
}

async function benchOpen(work: string, files: number, rounds: number): Promise<BenchRow> {
  const root = committedTree(work, files);
  const expected = readFileSync(join(root, READ_PATH), 'utf8');
  const server = await startServer(root, join(work, `home-${files}`));
  try {
    // the first open waits for the server's import of the tree, and its first call warms the sandbox
    const warm = await server.open('warm-up', WAIT_LIMIT_MS);
    checkRead(await server.call('read_file', { environment: warm, path: READ_PATH }, WAIT_LIMIT_MS), expected);
    await endEnvironment(server, warm);
    let worktrees = 0;
    const cairn = async () => {
      const start = performance.now();
      const id = await server.open('bench');
      const text = await server.call('read_file', { environment: id, path: READ_PATH });
      const ms = performance.now() - start;
      checkRead(text, expected);
      await endEnvironment(server, id);
      return ms;
    };
    const worktree = () => {
      const dir = join(work, `wt-${files}-${worktrees++}`);
      const ms = timeOnce(() => git(root, 'worktree', 'add', '-q', '--detach', dir));
      git(root, 'worktree', 'remove', '--force', dir);
      return ms;
    };
    const [opens, adds] = await timeSideBySide(rounds, cairn, worktree);
    return {
      tree: `${files} files`,
      measure: 'environment_open -> first tool result (MCP over stdio, server running)',
      unit: 'ms',
      cairn: median(opens),
      others: { 'git worktree add': median(adds) },
      goal: '<= 50 ms at 50k files',
    };
  } finally {
    await server.close();
  }
}

/**
 * The cost of one governed write: `writes` write_file calls in turn in one environment through MCP (each a stdio
 * round trip), per call, beside a program agent whose program makes the same calls, its run time (`spent.wallMs`)
 * per call. The run time also holds the run's fixed cost, so a one-write agent is timed in the same rounds and the
 * difference per extra call is given as well.
 */
async function benchWrites(work: string, size: McpBenchSize): Promise<BenchRow> {
  const n = size.writes;
  const root = committedTree(work, size.writesTree, 'writes');
  const server = await startServer(root, join(work, 'home-writes-mcp'));
  const project = openProject(root, { cairnHome: join(work, 'home-writes-program'), queue: 'own' });
  const paths = Array.from({ length: n }, (_, i) => `cairn-bench/w${i}.txt`);
  const program = `for (let i = 0; i < ${n}; i++) await write_file('cairn-bench/w' + i + '.txt', 'x');\n`;
  const oneWrite = `await write_file('cairn-bench/w0.txt', 'x');\n`;
  try {
    await project.sync();
    const viaMcp = async () => {
      const id = await server.open('bench writes', WAIT_LIMIT_MS);
      const start = performance.now();
      for (const path of paths) await server.call('write_file', { environment: id, path, content: 'x' });
      const ms = (performance.now() - start) / n;
      await server.call('submit_result', { environment: id, summary: 'bench writes' }, WAIT_LIMIT_MS);
      return ms;
    };
    const programRun = () => wallOf(project, program);
    const oneWriteRun = () => wallOf(project, oneWrite);
    // the first of each starts its sandbox and warms its caches
    await viaMcp();
    await programRun();
    await oneWriteRun();
    const [mcp, runs, oneRuns] = await timeSideBySide(size.writeRounds, viaMcp, programRun, oneWriteRun);
    const beyondOne = runs.map((ms, round) => (ms - oneRuns[round]!) / (n - 1));
    return {
      tree: `${size.writesTree} files`,
      measure: 'governed write_file: through MCP vs from a program agent',
      unit: 'ms',
      cairn: median(mcp),
      others: {
        'program agent, per call': median(runs.map((ms) => ms / n)),
        'program agent, per call beyond a one-write run': median(beyondOne),
      },
      goal: '',
    };
  } finally {
    await project.close();
    await server.close();
  }
}

/** Milliseconds a program agent of `code` ran (its `spent.wallMs`), once it is reviewing. */
async function wallOf(project: Project, code: string): Promise<number> {
  const agent = await project.spawn('bench writes', { code });
  const done = await within(`agent ${agent.id} to settle`, project.wait(agent.id, ['reviewing', 'failed']));
  if (done.state !== 'reviewing') throw new Error(`bench agent ${agent.id} ended ${done.state}: ${done.reason ?? ''}`);
  return done.spent.wallMs;
}

/** A `cairn mcp` server started by the official MCP client, as a client configured with it starts it. */
interface McpServer {
  /** Calls a tool; its text, or an error naming the call when it answers one. */
  call(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<string>;
  /** Opens an environment; its id. */
  open(task: string, timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

async function startServer(root: string, home: string): Promise<McpServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CAIRN, 'mcp', '--project', root],
    env: { ...(process.env as Record<string, string>), CAIRN_HOME: home, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const client = new Client({ name: 'cairn-bench', version: '1.0.0' });
  await within('cairn mcp to answer initialize', client.connect(transport));
  const call = async (name: string, args: Record<string, unknown>, timeoutMs = CALL_TIMEOUT_MS) => {
    const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (result.isError === true) throw new Error(`cairn mcp answered ${name} with an error: ${text}\nits stderr: ${stderr}`);
    return text;
  };
  return {
    call,
    open: async (task, timeoutMs) => {
      const text = await call('environment_open', { task }, timeoutMs);
      const id = /^opened environment (\S+) over the project as it is now\./.exec(text)?.[1];
      if (id === undefined) throw new Error(`cairn mcp: environment_open answered ${JSON.stringify(text)}\nits stderr: ${stderr}`);
      return id;
    },
    close: async () => {
      // the client ends the server's stdin and signals it when it still runs 2 s later: a slow end is reported
      const start = performance.now();
      await client.close();
      const ms = performance.now() - start;
      if (ms > 2_000) report(`mcp bench: cairn mcp took ${Math.round(ms)} ms to end after its stdin closed; its stderr: ${stderr}`, 'err');
    },
  };
}

/** Ends an environment as a client that is done does: one write, then submit_result (its proposal goes to review). */
async function endEnvironment(server: McpServer, id: string): Promise<void> {
  await server.call('write_file', { environment: id, path: 'cairn-bench.txt', content: 'hello\n' });
  await server.call('submit_result', { environment: id, summary: 'bench round' }, WAIT_LIMIT_MS);
}

function checkRead(text: string, expected: string): void {
  if (text !== expected) throw new Error(`cairn mcp: read_file of ${READ_PATH} answered ${JSON.stringify(text.slice(0, 200))}`);
}
