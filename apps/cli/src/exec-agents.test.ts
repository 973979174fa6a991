import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { connectDaemon, projectLayout } from '@cairn/daemon/client';
import { type AgentCliLookup, agentCliForTests, startScriptedAnthropic, startScriptedResponses } from '@cairn/orchestrator/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const { cli: claude, runs: claudeRuns } = agentCliForTests('claude');
const { cli: codex, runs: codexRuns } = agentCliForTests('codex');
const withClaude = claudeRuns ? it : it.skip;
const withCodex = codexRuns ? it : it.skip;

let project: CliProject | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  project?.cleanup();
  project = undefined;
});

const FILES = { 'src/a.js': 'export const word = "old";\n', '.env': 'SECRET=hunter2\n', 'README.md': '# demo\n' };

function cliPath(found: AgentCliLookup): string {
  if ('missing' in found) throw new Error(found.missing);
  return found.path;
}

/** `cairn spawn --exec` of Claude Code against a scripted server, with only the variables it needs passed. */
async function spawnClaude(p: CliProject, baseUrl: string, prompt: string) {
  const env = {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
    CLAUDE_CODE_GATEWAY_HINT_HEADERS: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  const passed = Object.keys(env).flatMap((name) => ['--env', name]);
  return p.run(['spawn', '--exec', ...passed, '--json', '--', cliPath(claude), '-p', prompt, '--dangerously-skip-permissions'], {
    env: { ...env, PATH: `${dirname(cliPath(claude))}:${process.env.PATH}` },
  });
}

describe('agent CLIs in a writable sealed view', () => {
  withClaude(
    "Claude Code's writes land in its overlay only, .env is invisible, .git is refused, its Bash sees the view, replay rebuilds it",
    async () => {
      project = makeCliProject(FILES);
      const server = await startScriptedAnthropic([
        { toolUses: [{ name: 'Write', input: { file_path: 'src/new.js', content: 'export const added = 1;\n' } }] },
        { toolUses: [{ name: 'Edit', input: { file_path: 'src/a.js', old_string: '"old"', new_string: '"new"' } }] },
        {
          toolUses: [
            {
              name: 'Bash',
              input: { command: '(cat .env 2>&1 || true) > seen.txt; ls -a >> seen.txt; pwd >> seen.txt; echo evil > .git/evil' },
            },
          ],
        },
        { text: 'Done.' },
      ]);
      closers.push(() => server.close());
      execFileSync('git', ['init', '-q'], { cwd: project.root });
      const spawned = await spawnClaude(project, server.baseUrl, 'rename the word');
      expect(spawned.code, spawned.stderr).toBe(0);
      const agent = resultOf(spawned).agent as { id: string; state: string; kind: string; summary: string };
      expect(agent.state).toBe('reviewing');
      expect(agent.kind).toBe('exec:claude');
      // the working tree is untouched until accept
      expect(readFileSync(`${project.root}/src/a.js`, 'utf8')).toContain('"old"');
      expect(existsSync(`${project.root}/src/new.js`)).toBe(false);
      expect(existsSync(`${project.root}/seen.txt`)).toBe(false);
      expect(existsSync(`${project.root}/.git/evil`)).toBe(false);
      const diff = await project.run(['diff', agent.id, '--no-pager']);
      expect(diff.stdout).toContain('+export const added = 1;');
      expect(diff.stdout).toContain('+export const word = "new";');
      // its Bash ran in the view: the project's path, no .env, no secret
      expect(diff.stdout).toContain(`+${project.root}`);
      expect(diff.stdout).not.toContain('hunter2');
      expect(diff.stdout).not.toMatch(/^\+\.env$/m);
      const log = await project.run(['log', agent.id, '--no-pager']);
      expect(log.stdout).toMatch(/\.git\/evil\s+denied/);
      const listed = await project.run(['ls', '--json']);
      expect(JSON.stringify(resultOf(listed))).toContain('exec:claude');
      const replay = await project.run(['replay', agent.id]);
      expect(replay.code, replay.stdout + replay.stderr).toBe(0);
      expect(replay.stdout).toContain('reproduced');
      const accepted = await project.run(['accept', agent.id]);
      expect(accepted.code, accepted.stderr).toBe(0);
      expect(readFileSync(`${project.root}/src/new.js`, 'utf8')).toBe('export const added = 1;\n');
    },
    240_000,
  );

  withClaude(
    'ten Claude Code agents at once each propose their own change',
    async () => {
      project = makeCliProject(FILES);
      const p = project;
      const runs = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const server = await startScriptedAnthropic([
            { toolUses: [{ name: 'Write', input: { file_path: `out-${i}.txt`, content: `agent ${i}\n` } }] },
            { text: 'Done.' },
          ]);
          closers.push(() => server.close());
          return spawnClaude(p, server.baseUrl, `write out-${i}.txt`);
        }),
      );
      for (const [i, run] of runs.entries()) {
        expect(run.code, run.stderr).toBe(0);
        const agent = resultOf(run).agent as { id: string; state: string; changes: { path: string }[] };
        expect(agent.state).toBe('reviewing');
        expect(agent.changes.map((c) => c.path)).toEqual([`out-${i}.txt`]);
        expect(existsSync(`${p.root}/out-${i}.txt`)).toBe(false);
      }
    },
    600_000,
  );

  withCodex(
    "Codex's patch and command land in its overlay only",
    async () => {
      project = makeCliProject(FILES);
      const server = await startScriptedResponses([
        { calls: [{ type: 'apply_patch', patch: '*** Begin Patch\n*** Add File: hello.txt\n+hello from codex\n*** End Patch\n' }] },
        { calls: [{ type: 'exec_command', cmd: 'ls -a > listing.txt; echo x > .git/evil 2>/dev/null; true' }] },
        { text: 'Done.' },
      ]);
      closers.push(() => server.close());
      execFileSync('git', ['init', '-q'], { cwd: project.root });
      // Codex's home is a folder the project ignores: the view shows it, and what Codex keeps there is not captured
      project.write('.gitignore', '.codex-home/\n');
      project.write(
        '.codex-home/config.toml',
        [
          'model = "gpt-5.5"',
          'model_provider = "local"',
          'check_for_update_on_startup = false',
          '[features]',
          'plugins = false',
          '[model_providers.local]',
          'name = "local"',
          `base_url = "${server.baseUrl}"`,
          'env_key = "OPENAI_API_KEY"',
          'wire_api = "responses"',
          'request_max_retries = 0',
          'stream_max_retries = 0',
          'stream_idle_timeout_ms = 10000',
          '',
        ].join('\n'),
      );
      const run = await project.run(
        [
          'spawn',
          '--exec',
          '--env',
          'OPENAI_API_KEY',
          '--env',
          'CODEX_HOME',
          '--json',
          '--',
          cliPath(codex),
          'exec',
          '--json',
          '--dangerously-bypass-approvals-and-sandbox',
          '--skip-git-repo-check',
          'say hello',
        ],
        { env: { OPENAI_API_KEY: 'dummy', CODEX_HOME: `${project.root}/.codex-home` } },
      );
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const agent = resultOf(run).agent as { id: string; kind: string; changes: { path: string }[] };
      expect(agent.kind).toBe('exec:codex');
      expect(agent.changes.map((c) => c.path).sort()).toEqual(['hello.txt', 'listing.txt']);
      expect(existsSync(`${project.root}/hello.txt`)).toBe(false);
      const diff = await project.run(['diff', agent.id, '--no-pager']);
      expect(diff.stdout).toContain('+hello from codex');
      expect(diff.stdout).not.toMatch(/^\+\.env$/m);
      const log = await project.run(['log', agent.id, '--no-pager']);
      expect(log.stdout).toMatch(/\.git\/evil\s+denied/);
    },
    240_000,
  );
});

describe('faults of agent CLIs', () => {
  it('a program that is not installed fails with how to install it; a known CLI is named', async () => {
    project = makeCliProject(FILES);
    const run = await project.run(['spawn', '--exec', '--', 'no-such-agent-cli', '-p', 'x']);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('command not found: no-such-agent-cli');
    expect(run.stdout + run.stderr).toMatch(/PATH/);
  }, 120_000);

  it('a command killed mid-run leaves what it wrote as a proposal marked interrupted', async () => {
    project = makeCliProject(FILES);
    const run = await project.run(['spawn', '--exec', '--json', '--', 'sh', '-c', 'echo partial > p.txt; kill -9 $$']);
    const agent = resultOf(run).agent as { state: string; summary: string; changes: { path: string }[] };
    expect(agent.state).toBe('reviewing');
    expect(agent.summary).toMatch(/^interrupted: .*killed by SIGKILL/);
    expect(agent.changes.map((c) => c.path)).toEqual(['p.txt']);
    expect(existsSync(`${project.root}/p.txt`)).toBe(false);
    // one that gives up with an error (an agent CLI whose model failed) is kept the same way
    const crashed = await project.run(['spawn', '--exec', '--json', '--', 'sh', '-c', 'echo half > h.txt; exit 2']);
    const kept = resultOf(crashed).agent as { state: string; summary: string };
    expect(kept.state).toBe('reviewing');
    expect(kept.summary).toMatch(/^interrupted: .*\(exited with 2\)/);
  }, 120_000);

  it('a run past its wall limit is killed with every process it started', async () => {
    project = makeCliProject(FILES);
    const marker = `sleep 600.${process.pid}`;
    const run = await project.run([
      'spawn',
      '--exec',
      '--wall-ms',
      '2000',
      '--json',
      '--',
      'sh',
      '-c',
      `echo a > a.txt; ${marker} & ${marker}`,
    ]);
    const agent = resultOf(run).agent as { state: string; summary: string };
    expect(agent.summary).toContain('killed at its wall limit');
    // the kernel kills what was left in the namespace as its first process ends: give it a moment
    let left = execFileSync('ps', ['-eo', 'args']).toString();
    for (let tries = 0; tries < 100 && left.includes(marker); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = execFileSync('ps', ['-eo', 'args']).toString();
    }
    expect(left).not.toContain(marker);
  }, 120_000);

  it('more changes than the calls budget are refused whole; a file over the write limit is refused by size', async () => {
    project = makeCliProject(FILES);
    const many = await project.run([
      'spawn',
      '--exec',
      '--calls',
      '5',
      '--json',
      '--',
      'sh',
      '-c',
      'for i in 1 2 3 4 5 6 7 8; do echo $i > f$i.txt; done',
    ]);
    const failed = resultOf(many).agent as { state: string; failure: { code: string; message: string } };
    expect(failed.state).toBe('failed');
    expect(failed.failure.code).toBe('budget');
    expect(failed.failure.message).toContain('changed 8 paths');
    const big = await project.run([
      'spawn',
      '--exec',
      '--json',
      '--',
      'sh',
      '-c',
      'head -c 5000000 /dev/zero > big.bin; echo ok > small.txt',
    ]);
    const agent = resultOf(big).agent as { id: string; changes: { path: string }[] };
    expect(agent.changes.map((c) => c.path)).toEqual(['small.txt']);
    const log = await project.run(['log', agent.id, '--no-pager']);
    expect(log.stdout).toMatch(/big\.bin\s+denied.*5000000 bytes exceeds/);
  }, 120_000);

  it('a second `cairn run` on an agent whose command still runs is refused', async () => {
    project = makeCliProject(FILES);
    const first = await project.run(['spawn', '--exec', '--json', '--', 'sh', '-c', 'echo one > one.txt']);
    const id = (resultOf(first).agent as { id: string }).id;
    const slow = project.run(['run', id, '--', 'sh', '-c', 'sleep 6; echo two > two.txt']);
    let state = 'reviewing';
    for (let tries = 0; tries < 600 && state !== 'running'; tries++) {
      const listed = resultOf(await project.run(['ls', '--json'])) as { agents?: { id: string; state: string }[] };
      state = listed.agents?.find((agent) => agent.id === id)?.state ?? state;
      if (state !== 'running') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const refused = await project.run(['run', id, '--', 'true']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('one command runs in an agent at a time');
    const done = await slow;
    expect(done.code, done.stderr).toBe(0);
  }, 180_000);

  it('`cairn run ID --sync` takes what the command wrote so far while it runs; replay rebuilds both captures', async () => {
    project = makeCliProject(FILES);
    const p = project;
    // the command waits for the test to say go, over loopback (the view keeps the network)
    let go = false;
    const server = createServer((_req, res) => res.writeHead(go ? 200 : 404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const wait = `const go = async () => { while ((await fetch('${url}')).status !== 200) await new Promise((r) => setTimeout(r, 100)); }; go();`;
    const running = p.run([
      'spawn',
      '--exec',
      '--json',
      '--',
      'sh',
      '-c',
      `echo first > s1.txt; node -e "${wait}"; echo second > s2.txt; rm s1.txt`,
    ]);
    let id: string | undefined;
    for (let tries = 0; tries < 600 && id === undefined; tries++) {
      const listed = resultOf(await p.run(['ls', '--json'])) as { agents?: { id: string; state: string }[] };
      id = listed.agents?.find((agent) => agent.state === 'running')?.id;
      if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(id).toBeDefined();
    let synced = await p.run(['run', id!, '--sync']);
    for (let tries = 0; tries < 100 && !synced.stdout.includes('took 1 changes'); tries++) synced = await p.run(['run', id!, '--sync']);
    expect(synced.stdout).toContain('took 1 changes');
    expect((await p.run(['diff', id!, '--no-pager'])).stdout).toContain('+first');
    go = true;
    const done = await running;
    const agent = resultOf(done).agent as { changes: { path: string }[] };
    expect(agent.changes.map((c) => c.path)).toEqual(['s2.txt']);
    const replay = await p.run(['replay', id!]);
    expect(replay.stdout).toContain('reproduced: 2 runs');
  }, 180_000);

  it('only the home entries asked for are there, read-only, and only the variables named pass', async () => {
    project = makeCliProject(FILES);
    const home = `${project.base}/user-home`;
    mkdirSync(`${home}/.claude`, { recursive: true });
    mkdirSync(`${home}/.ssh`, { recursive: true });
    writeFileSync(`${home}/.claude/settings.json`, '{"theme":"dark"}\n');
    writeFileSync(`${home}/.ssh/id_ed25519`, 'PRIVATE\n');
    const script = [
      'cat ~/.claude/settings.json > seen.txt',
      'ls -a ~ >> seen.txt',
      '(echo x > ~/.claude/new) 2>/dev/null && echo wrote >> seen.txt || echo refused >> seen.txt',
      'echo "passed=$PASSED other=$OTHER" >> seen.txt',
    ].join('; ');
    const run = await project.run(['spawn', '--exec', '--home', '~/.claude', '--env', 'PASSED', '--json', '--', 'sh', '-c', script], {
      env: { HOME: home, PASSED: 'yes', OTHER: 'no' },
    });
    const agent = resultOf(run).agent as { id: string; state: string };
    expect(agent.state).toBe('reviewing');
    const diff = (await project.run(['diff', agent.id, '--no-pager'])).stdout;
    expect(diff).toContain('+{"theme":"dark"}');
    expect(diff).toContain('+.claude');
    expect(diff).not.toContain('.ssh');
    expect(diff).toContain('+refused');
    expect(diff).toContain('+passed=yes other=');
    expect(existsSync(`${home}/.claude/new`)).toBe(false);
  }, 120_000);

  it('with a daemon running, the agent runs in the terminal that spawned it and the daemon tells its listeners', async () => {
    project = makeCliProject(FILES);
    const p = project;
    const up = await p.run(['up', '--detach']);
    expect(up.code, up.stderr).toBe(0);
    closers.push(async () => {
      await p.run(['down']);
    });
    const layout = projectLayout(p.root, p.home);
    const client = await connectDaemon(layout.root, layout.socketPath);
    expect(client).toBeDefined();
    closers.push(() => client!.close());
    const events = await client!.subscribe();
    const run = await p.run(['spawn', '--exec', '--json', '--', 'sh', '-c', 'echo d > d.txt']);
    const agent = resultOf(run).agent as { id: string; state: string };
    expect(agent.state).toBe('reviewing');
    const heard: string[] = [];
    for (let next = await events.next(); next.done !== true; next = await events.next()) {
      if ('agentId' in next.value && next.value.agentId === agent.id) heard.push(next.value.type);
      if (heard.includes('agent.submitted')) break;
    }
    expect(heard).toContain('agent.submitted');
    const fromDaemon = await client!.agent(agent.id);
    expect(fromDaemon.kind).toBe('exec:sh');
    expect(fromDaemon.changes?.map((c) => c.path)).toEqual(['d.txt']);
  }, 180_000);
});
