import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { programAnswer, type ScriptedOllama, startScriptedOllama } from '@cairn/orchestrator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable } from './test-support/redis-server.js';
import { resultOf } from './test-support/run-cairn.js';
import { startCluster, type WorkerCluster } from './test-support/worker-cluster.js';

const hasRedis = redisAvailable();

const CHECKS = {
  checks: { test: { command: ['sh', '-c', 'test -f README.md && echo fine'] }, lint: { command: ['true'], auto: false } },
};

const JS = "await write_file('out/js.txt', 'from js\\n');\nawait submit_result('js wrote', ['out/js.txt']);\n";
const PY = "write_file('out/py.txt', 'from py\\n')\nsubmit_result('py wrote', ['out/py.txt'])\n";
const CHECKER = `let said = '';
try { await run_check('test'); said = 'ran'; } catch (e) { said = String(e.message ?? e); }
await write_file('out/check.txt', said + '\\n');
await submit_result('asked for a check', ['out/check.txt']);
`;
const REVIEWER = "const p = await get_proposal();\nawait decide('do:custom:noted', 'read ' + p.changes.length + ' file');\n";

describe.skipIf(!hasRedis)('agents on workers in a project that declares checks and a manifest', () => {
  let cluster: WorkerCluster;
  let ollama: ScriptedOllama;

  beforeAll(async () => {
    ollama = await startScriptedOllama([
      programAnswer("await write_file('out/model.txt', 'from the model\\n');\nawait submit_result('model wrote', ['out/model.txt']);"),
    ]);
    cluster = await startCluster({
      workers: ['g1', 'g2'],
      config: CHECKS,
      files: {
        // a manifest that narrows the defaults: the worker must run under exactly what the coordinator signed
        '.cairn/manifest.air.json': JSON.stringify({
          $kind: 'manifest',
          schemas: [],
          modules: [],
          plans: [],
          caps: [],
          policies: [],
          defaults: { cap_grants: [{ name: 'fs', cap: 'sys/fs@1', params: { read_prefixes: [''], write_exclude: ['secret/'] } }] },
        }),
      },
    });
    for (const name of ['g1', 'g2']) cluster.startWorker(name, { env: { OLLAMA_HOST: ollama.host } });
  });

  afterAll(async () => {
    await cluster?.close();
    await ollama?.close();
  });

  it('runs program (js, py), model-written and check-asking agents on workers, each verified, with the check result of the coordinator', async () => {
    const ids = [
      await cluster.queueProgram('js agent', JS),
      await cluster.queueProgram('py agent', PY, 'py'),
      await cluster.queueProgram('check agent', CHECKER),
    ];
    const model = await cluster.cairn(['queue', 'model agent', '--json']);
    expect(model.code, model.stderr).toBe(0);
    ids.push((resultOf(model).agent as { id: string }).id);
    const agents = await cluster.waitForStates(ids, ['reviewing', 'failed']);
    expect(agents.map((a) => [a.task, a.state, a.reason])).toEqual(
      ['js agent', 'py agent', 'check agent', 'model agent'].map((task) => [task, 'reviewing', undefined]),
    );
    expect(agents.every((a) => a.worker === 'g1' || a.worker === 'g2')).toBe(true);
    // the automatic check runs on the coordinator, over its working tree with the proposal on top
    for (const id of ids) {
      let checks: { name: string; status: string }[] = [];
      for (let i = 0; i < 240 && !checks.some((c) => c.name === 'test' && c.status === 'passed'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        checks = ((await cluster.status(id)).checks as typeof checks | undefined) ?? [];
      }
      expect(checks.map((c) => [c.name, c.status])).toEqual([['test', 'passed']]);
    }
    // a worker holds no working tree: run_check is refused there with a reason the program caught
    const diff = await cluster.cairn(['diff', ids[2]!]);
    expect(diff.stdout).toMatch(/\+run_check: checks do not run on worker g[12]: it holds no working tree/);
    for (const id of ids) expect((await cluster.cairn(['replay', id])).code, id).toBe(0);
  });

  it('runs a reviewer on the coordinator (it reads the proposal there), whatever the workers', async () => {
    const author = await cluster.queueProgram('to be reviewed', JS.replace(/js/g, 'rv'));
    await cluster.waitForStates([author], ['reviewing']);
    const file = join(cluster.base, 'reviewer.js');
    writeFileSync(file, REVIEWER);
    const review = await cluster.cairn(['review', author, '--code', file, '--wait', '--json']);
    const reviewer = resultOf(review).agent as Record<string, unknown>;
    expect([reviewer.state, reviewer.worker, reviewer.reason]).toEqual(['decided', undefined, expect.stringMatching(/^decided do:custom/)]);
  });
});
