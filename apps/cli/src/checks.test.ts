import { execFileSync, spawn as spawnProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const TEST_JS =
  "const v = require('fs').readFileSync('value.txt', 'utf8');\nconsole.log('value is ' + v.trim());\nprocess.exit(v.startsWith('good') ? 0 : 1);\n";
const writes = (path: string, content: string) =>
  `await write_file(${JSON.stringify(path)}, ${JSON.stringify(content)});\nawait submit_result('wrote ${path}', [${JSON.stringify(path)}]);\n`;

/** Serves HTTP on 127.0.0.1 and on localhost, fetches from each, and exits 0 only when both answered. */
const SERVE_JS = `const http = require('node:http');
const serve = (host) => new Promise((resolve) => {
  const server = http.createServer((_, res) => res.end('hello'));
  server.on('error', (e) => resolve(e.code));
  server.listen(0, host, () => {
    http.get({ host, port: server.address().port }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => server.close(() => resolve(body)));
    }).on('error', (e) => server.close(() => resolve(e.code)));
  });
});
(async () => {
  const answers = [await serve('127.0.0.1'), await serve('localhost')];
  console.log(answers.join(' '));
  process.exit(answers.every((a) => a === 'hello') ? 0 : 1);
})();
`;

let project: CliProject;
beforeEach(() => {
  project = makeCliProject({
    'package.json': JSON.stringify({ name: 'p', scripts: { test: 'node test.js' } }),
    'test.js': TEST_JS,
    'value.txt': 'good\n',
  });
  project.write('good.js', writes('other.txt', 'x\n'));
  project.write('bad.js', writes('value.txt', 'bad\n'));
});
afterEach(() => project.cleanup());

async function spawn(code: string): Promise<string> {
  const run = await project.run(['spawn', '--code', code, 'change something', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (resultOf(run).agent as { id: string }).id;
}

describe('cairn checks', () => {
  it('suggests checks from the scripts and writes them only when told to', async () => {
    const dry = await project.run(['checks', 'suggest']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('test  npm run test  (package.json scripts.test, automatic)');
    expect(dry.stdout).toContain('nothing written');
    const written = await project.run(['checks', 'suggest', '--yes', '--json']);
    expect(resultOf(written)).toMatchObject({ ok: true, written: ['test'] });
    const config = JSON.parse(readFileSync(join(project.root, '.cairn', 'config.json'), 'utf8'));
    expect(config.checks.test.command).toEqual(['npm', 'run', 'test']);
  });

  it('runs automatic checks on proposals, shows them in ls, status, diff and checks, and gates accept', async () => {
    expect((await project.run(['checks', 'suggest', '--yes'])).code).toBe(0);
    const good = await spawn('good.js');
    const bad = await spawn('bad.js');

    const ls = await project.run(['ls']);
    expect(ls.stdout).toMatch(/CHECKS/);
    expect(ls.stdout).toMatch(new RegExp(`${good}.*✓ 1`));
    expect(ls.stdout).toMatch(new RegExp(`${bad}.*✗ test`));

    const checks = await project.run(['checks', bad]);
    expect(checks.code).toBe(1);
    expect(checks.stdout).toMatch(/✗ test\s+failed \(exit 1\)/);
    const output = await project.run(['checks', bad, 'test']);
    expect(output.stdout).toContain('value is bad');
    const json = await project.run(['checks', good, '--json']);
    expect(resultOf(json)).toMatchObject({ ok: true, checks: [{ name: 'test', status: 'passed', exitCode: 0 }] });
    expect((await project.run(['status', bad])).stdout).toMatch(/checks:\n\s+✗ test\s+failed \(exit 1\)/);
    expect((await project.run(['diff', bad, '--no-pager'])).stdout).toMatch(/^# ✗ test\s+failed \(exit 1\)/);

    const refused = await project.run(['accept', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`agent ${bad}'s checks did not pass: test failed (exit 1)`);
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(join(project.root, 'value.txt'), 'utf8')).toBe('good\n');
    expect((await project.run(['accept', good])).code).toBe(0);
    expect((await project.run(['accept', bad, '--force'])).code).toBe(0);
    expect(readFileSync(join(project.root, 'value.txt'), 'utf8')).toBe('bad\n');
  });

  it('passes a check that serves HTTP on localhost in its sealed view; one that reaches outside fails at once', async () => {
    project.write('serve.js', SERVE_JS);
    const reach =
      "require('net').connect(80, '10.255.255.1').on('connect', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(3); })";
    project.write(
      '.cairn/config.json',
      JSON.stringify({ checks: { http: ['node', 'serve.js'], outside: { command: ['node', '-e', reach], timeoutMs: 30_000 } } }),
    );
    const id = await spawn('good.js');
    const run = await project.run(['checks', id]);
    expect(run.stdout).toMatch(/✓ http\s+passed/);
    expect((await project.run(['checks', id, 'http', '--no-pager'])).stdout).toContain('hello hello');
    const outside = resultOf(await project.run(['checks', id, 'outside', '--json'])) as { check: { sealed: boolean }; output: string };
    if (!outside.check.sealed) return;
    expect(run.stdout).toMatch(/✓ http\s+passed.*overlay, sealed|✓ http\s+passed.*copy, sealed/);
    expect(run.stdout).toMatch(/✗ outside\s+failed \(exit 3\)/);
    expect(outside.output).toBe('ENETUNREACH\n');
  });

  it('shows stale, without a daemon, a pass from before a hand edit, in ls, checks, status and diff, and runs nothing', async () => {
    expect((await project.run(['checks', 'suggest', '--yes'])).code).toBe(0);
    const id = await spawn('good.js');
    expect((await project.run(['ls'])).stdout).toMatch(new RegExp(`${id}.*✓ 1`));
    project.write('value.txt', 'bad by hand\n');

    const ls = await project.run(['ls']);
    expect(ls.stdout).toMatch(new RegExp(`${id}\\s+reviewing.*\\bstale\\b`));
    expect(ls.stdout).not.toContain('✓');
    const checks = await project.run(['checks', id]);
    expect(checks.code).toBe(1);
    expect(checks.stdout).toMatch(/… test\s+stale/);
    expect(checks.stdout).toContain(`\`cairn checks ${id} --run\` runs it again`);
    expect((await project.run(['status', id])).stdout).toMatch(/checks:\n\s+… test\s+stale/);
    expect((await project.run(['diff', id, '--no-pager'])).stdout).toMatch(/^# … test\s+stale/);
    expect(resultOf(await project.run(['checks', '--json']))).toMatchObject({
      agents: [{ id, checks: [{ name: 'test', status: 'stale' }] }],
    });
    // the commands that show only marked the results: no check ran, and none was left running
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain('node test.js');

    const rerun = await project.run(['checks', id, '--run']);
    expect(rerun.code).toBe(1);
    expect(rerun.stdout).toMatch(/✗ test\s+failed \(exit 1\)/);
    expect((await project.run(['ls'])).stdout).toMatch(new RegExp(`${id}.*✗ test`));
  });

  it('spawn without a daemon shows the checks it waits for, and each as it finishes', async () => {
    expect((await project.run(['checks', 'suggest', '--yes'])).code).toBe(0);
    const run = await project.run(['spawn', '--wait', '--code', 'bad.js', 'break the value']);
    expect(run.code, run.stderr).toBe(0);
    const id = /spawned (\w+)/.exec(run.stdout)?.[1];
    expect(run.stdout).toContain(`checks of ${id} run here until they finish (no daemon runs them; Ctrl-C stops them): test\n`);
    expect(run.stdout).toMatch(/\n {2}✗ test\s+failed \(exit 1\)/);
    // the outcome comes after the checks, and holds their results
    const json = await project.run(['spawn', '--code', 'good.js', 'change something', '--json']);
    const last = json.json.at(-1) as { type: string; agent: { checks: { status: string }[] } };
    expect(last.type).toBe('result');
    expect(last.agent.checks).toEqual([expect.objectContaining({ status: 'passed' })]);
    expect(json.json.some((line) => (line as { event?: { type: string } }).event?.type === 'check.finished')).toBe(true);
  });

  it('spawn without a daemon, interrupted while its checks run, stops them and leaves them stale', async () => {
    const tag = `72${Math.floor(Math.random() * 100000)}`;
    project.write('.cairn/config.json', JSON.stringify({ checks: { slow: ['sh', '-c', `sleep ${tag}`] } }));
    const child = spawnProcess(process.execPath, [CAIRN_BIN, 'spawn', '--wait', '--code', 'good.js', 'change something'], {
      cwd: project.root,
      env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const hang = setTimeout(() => child.kill('SIGKILL'), 120_000);
    try {
      while (!output.includes('run here until they finish') && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
    } finally {
      clearTimeout(hang);
    }
    const id = /spawned (\w+)/.exec(output)?.[1];
    expect(output).toContain(`checks of ${id} run here until they finish (no daemon runs them; Ctrl-C stops them): slow\n`);
    expect(output).toContain(`interrupted: the checks stopped (their results are stale); ${id} is reviewing`);
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(`sleep ${tag}`);
    expect((await project.run(['ls'])).stdout).toMatch(new RegExp(`${id}\\s+reviewing.*\\bstale\\b`));
  });

  it('spawn without a daemon waits only for its own checks, not for those a killed command left pending', async () => {
    const tag = `73${Math.floor(Math.random() * 100000)}`;
    project.write('.cairn/config.json', JSON.stringify({ checks: { slow: ['sh', '-c', `sleep ${tag}; exit 0`] } }));
    const killed = spawnProcess(process.execPath, [CAIRN_BIN, 'spawn', '--code', 'good.js', 'change something'], {
      cwd: project.root,
      env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    killed.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const gone = new Promise((resolve) => killed.on('close', resolve));
    while (!output.includes('run here until they finish') && killed.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 100));
    killed.kill('SIGKILL');
    await gone;
    const left = /spawned (\w+)/.exec(output)?.[1];
    expect((await project.run(['ls'])).stdout).toMatch(new RegExp(`${left}.*… 1`));

    project.write('.cairn/config.json', JSON.stringify({ checks: { slow: ['true'] } }));
    const run = await project.run(['spawn', '--code', 'good.js', 'change something else']);
    expect(run.code, run.stderr).toBe(0);
    const id = /spawned (\w+)/.exec(run.stdout)?.[1];
    expect(run.stdout).toContain(`checks of ${id} run here until they finish (no daemon runs them; Ctrl-C stops them): slow\n`);
    expect(run.stdout).toMatch(/\n {2}✓ slow\s+passed/);
  });

  it('spawn without a daemon ends, saying so, when another command makes the check it waits for stale', async () => {
    project.write('gate.txt', 'wait\n');
    project.write(
      '.cairn/config.json',
      JSON.stringify({ checks: { gated: ['sh', '-c', 'while grep -q wait gate.txt; do sleep 0.05; done'] } }),
    );
    const child = spawnProcess(process.execPath, [CAIRN_BIN, 'spawn', '--code', 'good.js', 'change something'], {
      cwd: project.root,
      env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const hang = setTimeout(() => child.kill('SIGKILL'), 120_000);
    try {
      while (!output.includes('run here until they finish') && child.exitCode === null)
        await new Promise((resolve) => setTimeout(resolve, 100));
      project.write('value.txt', 'edited by hand\n');
      expect((await project.run(['ls'])).stdout).toMatch(/\bstale\b/);
      project.write('gate.txt', 'go\n');
      expect(await exited).toBe(0);
    } finally {
      clearTimeout(hang);
    }
    expect(output).toMatch(/\n {2}… gated\s+stale/);
  });

  it('spawn --wait with a daemon returns once the agent is reviewing, saying which checks run on there', async () => {
    const tag = `71${Math.floor(Math.random() * 100000)}`;
    project.write('.cairn/config.json', JSON.stringify({ checks: { slow: ['sh', '-c', `sleep ${tag}`] } }));
    expect((await project.run(['up', '--detach'])).code).toBe(0);
    try {
      const run = await project.run(['spawn', '--wait', '--code', 'good.js', 'change something']);
      expect(run.code, run.stderr).toBe(0);
      const id = /spawned (\w+)/.exec(run.stdout)?.[1];
      expect(run.stdout).toContain(`checks slow run on in the daemon: \`cairn checks ${id}\` shows them`);
      expect((await project.run(['ls'])).stdout).toMatch(new RegExp(`${id}.*… 1`));
    } finally {
      await project.run(['down']);
    }
  });

  it('gives one clear line for a check that hangs, a missing program, and a network call', async () => {
    project.write(
      '.cairn/config.json',
      JSON.stringify({
        checks: {
          hang: { command: ['sh', '-c', 'sleep 1000'], timeoutMs: 1500 },
          missing: { command: ['cairn-no-such-program'] },
          net: {
            command: ['node', '-e', "require('net').connect(9, '127.0.0.1').on('error', (e) => { console.log(e.code); process.exit(3); })"],
          },
        },
      }),
    );
    const id = await spawn('good.js');
    const run = await project.run(['checks', id]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/✗ hang\s+timed out/);
    expect(run.stdout).toMatch(/✗ missing\s+error: command not found: cairn-no-such-program/);
    expect(run.stdout).toMatch(/✗ net\s+failed \(exit 3\)/);
    expect(run.stdout).toMatch(/overlay: |copy: /);
  });
});
