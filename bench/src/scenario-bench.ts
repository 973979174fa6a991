import { type ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startDaemon } from '@cairn/daemon';
import type { AgentInfo } from '@cairn/orchestrator';
import { commitAll, generateTree } from './fixtures.js';
import { report, SMOKE, within } from './measure.js';
import { startRedis } from './redis.js';
import type { BenchRow } from './storage-bench.js';
import { CAIRN_BIN, enrollWorker, startWorkerProcess, stopProcesses } from './worker-processes.js';

const run = promisify(execFile);

const FILES = SMOKE ? 300 : 50_000;
const AGENTS = SMOKE ? 4 : 20;
const CLIS = SMOKE ? 2 : 4;
const WORKERS = 2;

/** The project's test suite, declared as an automatic check: it reads the tree and asserts on it. */
const SUITE = [
  "const { readFileSync, readdirSync } = require('node:fs');",
  "const assert = require('node:assert');",
  "assert.match(readFileSync('pkg0/mod0/part0/file0.ts', 'utf8'), /export const value0/);",
  "for (const name of readdirSync('notes', { withFileTypes: true })) assert.ok(name.isFile());",
  "console.log('ok');",
].join('\n');

/**
 * The day-one scenario: a large project with its test suite declared as a check, agents spawned from several
 * shells at once, each reaching review with its check run sealed. Once on the daemon's local pool, once on a
 * coordinator feeding two `cairn worker` processes through Redis (each agent verified by replay), side by side.
 * The figure is the wall time per agent from the first spawn until every agent is in review with its check
 * passed: programs need no model, so it is all Cairn's cost. Skipped without redis-server.
 */
export async function benchScenario(work: string): Promise<BenchRow[]> {
  const redis = await startRedis(work);
  if (redis === undefined) {
    report('[scenario] missing redis-server: apt-get install redis-server (skipped)');
    return [];
  }
  const processes: ChildProcess[] = [];
  try {
    const local = await runScenario(join(work, 'local'));
    report(`[scenario] local pool: ${local.toFixed(0)} ms an agent`);
    const remote = await runScenario(join(work, 'workers'), { queue: redis.url, processes });
    const tree = `${FILES.toLocaleString('en')} files, check declared, ${AGENTS} agents from ${CLIS} CLIs`;
    return [
      {
        tree,
        measure: `spawn -> reviewing with its check passed, per agent (${WORKERS} workers through Redis, verified)`,
        unit: 'ms',
        cairn: remote,
        others: { 'local pool': local },
        goal: '<= 500 ms an agent',
      },
    ];
  } finally {
    await stopProcesses(processes);
    await redis.stop();
  }
}

/** Runs the scenario on a fresh project; returns the wall time per agent (ms). */
async function runScenario(base: string, remote?: { queue: string; processes: ChildProcess[] }): Promise<number> {
  const root = join(base, 'project');
  const home = join(base, 'home');
  generateTree(root, FILES);
  mkdirSync(join(root, 'notes'), { recursive: true });
  mkdirSync(join(root, 'test'), { recursive: true });
  writeFileSync(join(root, 'notes', 'README.md'), '# notes\n');
  writeFileSync(join(root, 'test', 'suite.cjs'), `${SUITE}\n`);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'scenario', private: true, scripts: { test: 'node test/suite.cjs' } }));
  const config: Record<string, unknown> = { checks: { test: { command: ['node', 'test/suite.cjs'], timeoutMs: 120_000 } } };
  if (remote !== undefined) {
    const keys: Record<string, string> = {};
    for (let w = 0; w < WORKERS; w++) keys[`w${w}`] = enrollWorker(join(base, `worker-${w}`), `w${w}`);
    config.workers = keys;
  }
  mkdirSync(join(root, '.cairn'), { recursive: true });
  writeFileSync(join(root, '.cairn', 'config.json'), JSON.stringify(config, null, 2));
  commitAll(root);
  const programs = join(base, 'programs');
  mkdirSync(programs, { recursive: true });
  for (let n = 0; n < AGENTS; n++)
    writeFileSync(
      join(programs, `agent-${n}.js`),
      `await write_file('notes/agent-${n}.md', 'a note by agent ${n}\\n');\nawait submit_result('note ${n}', ['notes/agent-${n}.md']);\n`,
    );
  const daemon = await startDaemon(root, {
    cairnHome: home,
    ...(remote === undefined ? {} : { remote: { queue: remote.queue, serveWorkers: '127.0.0.1:0' } }),
  });
  try {
    if (remote !== undefined) {
      const { url, bearer } = daemon.workers!;
      for (let w = 0; w < WORKERS; w++)
        remote.processes.push(
          startWorkerProcess({ home: join(base, `worker-${w}`), name: `w${w}`, queue: remote.queue, coordinator: url!, bearer }),
        );
    }
    const env = { ...process.env, CAIRN_HOME: home, NO_COLOR: '1' };
    const start = Date.now();
    const shells = Array.from({ length: CLIS }, async (_, shell) => {
      for (let n = shell; n < AGENTS; n += CLIS)
        await run(process.execPath, [CAIRN_BIN, 'spawn', '--code', join(programs, `agent-${n}.js`), `note ${n}`], { cwd: root, env });
    });
    await within(`${AGENTS} spawns from ${CLIS} CLIs`, Promise.all(shells));
    const agents = await within(
      `${AGENTS} agents in review with their checks`,
      settled(() => daemon.project.agents()),
    );
    const ms = (Date.now() - start) / AGENTS;
    const refused = agents.filter((agent) => agent.state !== 'reviewing' || !checksPassed(agent));
    if (refused.length > 0) {
      const first = refused[0]!;
      throw new Error(
        `${refused.length} agents did not reach review with a passed check: ${first.id} ${first.state} ${first.reason ?? ''}`,
      );
    }
    return ms;
  } finally {
    await daemon.stop();
  }
}

function checksPassed(agent: AgentInfo): boolean {
  return (agent.checks ?? []).length > 0 && agent.checks!.every((check) => check.status === 'passed');
}

/** Waits until every agent has settled and no check of theirs is still to run. */
async function settled(list: () => Promise<AgentInfo[]>): Promise<AgentInfo[]> {
  for (;;) {
    const agents = await list();
    const open = agents.some(
      (agent) =>
        agent.state === 'queued' ||
        agent.state === 'running' ||
        (agent.state === 'reviewing' && (agent.checks ?? []).some((c) => c.status === 'pending' || c.status === 'stale')),
    );
    if (agents.length >= AGENTS && !open) return agents;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
