import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const FILES: Record<string, string> = {
  'src/greet.js': 'export function greet(name) {\n  var text = "Hello, " + name;\n  return text;\n}\n',
  'src/math.js': 'export function add(a, b) {\n  return a + b;\n}\n',
  'README.md': '# demo\n',
};
const USE_CONST = `const t = await read_file('src/greet.js');\nawait write_file('src/greet.js', t.replace('var text', 'const text'));\nawait submit_result('const in greet', ['src/greet.js']);\n`;

/** Tests that act as another user need root to switch to one. */
const AS_ROOT = process.getuid?.() === 0;

let project: CliProject;

beforeEach(() => {
  project = makeCliProject(FILES);
  project.write('fix.js', USE_CONST);
});

afterEach(() => project.cleanup());

async function spawnReviewing(code = 'fix.js', task = 'use const'): Promise<string> {
  const run = await project.run(['spawn', '--code', code, task, '--json']);
  expect(run.code, run.stderr).toBe(0);
  const agent = resultOf(run).agent as { id: string; state: string };
  expect(agent.state).toBe('reviewing');
  return agent.id;
}

describe('usage', () => {
  it('prints help generated from the declared options, and exits 2 on usage errors', async () => {
    const help = await project.run(['--help']);
    expect(help.code).toBe(0);
    for (const command of [
      'up',
      'down',
      'spawn',
      'queue',
      'list-agents|ls',
      'status',
      'diff',
      'log',
      'accept',
      'undo',
      'reject',
      'restore',
      'replay',
      'events',
      'gc',
      'air',
      'demo',
      'inbox',
      'review',
    ])
      expect(help.stdout).toMatch(new RegExp(`^\\s+${command.replace('|', '\\|')}\\b`, 'm'));
    const spawnHelp = await project.run(['spawn', '--help']);
    expect(spawnHelp.stdout).toMatch(/--code <file>/);
    expect(spawnHelp.stdout).toMatch(/--project <dir>/);
    expect(spawnHelp.stdout).toMatch(/--json/);
    const unknown = await project.run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
    const missing = await project.run(['accept']);
    expect(missing.code).toBe(2);
    const asJson = await project.run(['accept', '--json']);
    expect(asJson.code).toBe(2);
    expect(asJson.json).toEqual([expect.objectContaining({ type: 'error', code: 'CAIRN_USAGE' })]);
    expect((await project.run(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('refuses a missing --code file and a path outside the project with exit 2', async () => {
    const missing = await project.run(['spawn', '--code', 'nope.js', 'task']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the program nope\.js: no such file/);
    project.write('image.js', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]));
    const binary = await project.run(['spawn', '--code', 'image.js', 'task']);
    expect([binary.code, binary.stderr.split('\n')[0]]).toEqual([2, 'error: the program image.js is not text (UTF-8)']);
    const id = await spawnReviewing();
    const outside = await project.run(['diff', id, '../etc/passwd', '--json']);
    expect(outside.code).toBe(2);
    expect(resultOf(outside)).toMatchObject({ type: 'error', code: 'CAIRN_INVALID_PATH' });
  });
});

describe('the daily loop without a daemon', () => {
  it('spawns, lists, shows, diffs, logs, accepts, undoes, rejects, restores, replays, collects', async () => {
    const spawned = await project.run(['spawn', '--code', 'fix.js', 'use const', '--json']);
    expect(spawned.code).toBe(0);
    const lines = spawned.json;
    expect(lines.every((line) => typeof line.type === 'string')).toBe(true);
    expect(lines.some((line) => line.type === 'event')).toBe(true);
    const agent = resultOf(spawned).agent as Record<string, unknown>;
    expect(agent).toMatchObject({
      task: 'use const',
      state: 'reviewing',
      changes: [{ path: 'src/greet.js', status: 'modified', kind: 'file' }],
    });
    for (const key of ['id', 'createdAt', 'updatedAt', 'summary']) expect(agent).toHaveProperty(key);
    const id = agent.id as string;

    const human = await project.run(['spawn', '--code', 'fix.js', 'use const']);
    expect(human.stdout).toMatch(/^spawned [0-9a-f]{4,}: use const$/m);
    expect(human.stdout).toMatch(/is reviewing: const in greet \(1 file\)/);

    const ls = await project.run(['ls', '--json']);
    expect((resultOf(ls).agents as unknown[]).length).toBe(2);
    expect((await project.run(['list-agents'])).stdout).toMatch(new RegExp(`${id}\\s+reviewing`));
    expect((await project.run(['status', id])).stdout).toContain('const in greet');
    const diff = await project.run(['diff', id]);
    expect(diff.stdout).toContain('+  const text = "Hello, " + name;');
    const log = await project.run(['log', id]);
    expect(log.code).toBe(0);
    expect(log.stdout).toMatch(/journal verified/);
    expect(log.stdout).toMatch(/fs\.write\s+src\/greet\.js\s+ok/);
    expect(log.stdout).toMatch(/journal verified: \d+ entries/);

    const accepted = await project.run(['accept', id, '--json']);
    expect(accepted.code).toBe(0);
    expect(resultOf(accepted)).toMatchObject({ ok: true, applied: [{ path: 'src/greet.js', how: 'fast-forward' }], conflicts: [] });
    expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toContain('const text');
    expect(resultOf(await project.run(['status', id, '--json'])).agent).toMatchObject({
      state: 'accepted',
      changes: [{ path: 'src/greet.js', status: 'modified' }],
    });
    const again = await project.run(['accept', id, '--json']);
    expect(again.code).toBe(1);
    expect(resultOf(again)).toMatchObject({ type: 'error', code: 'CAIRN_INVALID_STATE' });
    const undone = await project.run(['undo', id]);
    expect(undone.code).toBe(0);
    expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toContain('var text');
    const rejected = await project.run(['reject', id, '--reason', 'not today', '--json']);
    expect(resultOf(rejected).agent).toMatchObject({ state: 'rejected', reason: 'not today' });
    expect((await project.run(['restore', id])).stdout).toMatch(/reviewing again/);
    const replay = await project.run(['replay', id]);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/reproduced/);
    const plain = await project.run(['reject', id]);
    expect(plain.stdout).toBe(`rejected ${id} (bring it back with \`cairn restore ${id}\`)\n`);
    const gc = await project.run(['gc', '--older-than', '0s', '--json']);
    expect(resultOf(gc).collected).toEqual([expect.objectContaining({ agentId: id })]);
  });

  it('exits 1 on a conflict and prints its hunks', async () => {
    const id = await spawnReviewing();
    project.write('src/greet.js', FILES['src/greet.js']!.replace('var text = "Hello, "', 'var text = "Hi, "'));
    const conflict = await project.run(['accept', id]);
    expect(conflict.code).toBe(1);
    expect(conflict.stdout).toMatch(/src\/greet\.js conflict/);
    expect(conflict.stdout).toContain('var text = "Hi, " + name;');
    expect(conflict.stdout).toContain('const text = "Hello, " + name;');
    expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toContain('"Hi, "');
  });

  it('exits 1 for a failed agent, with its reason and hint', async () => {
    project.write('broken.js', 'await read_file("missing.txt");\n');
    const run = await project.run(['spawn', '--code', 'broken.js', 'fail']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/failed: the program failed: .*missing\.txt/);
    const unknown = await project.run(['status', 'zzzz', '--json']);
    expect(unknown.code).toBe(1);
    expect(resultOf(unknown)).toMatchObject({ type: 'error', code: 'CAIRN_NOT_FOUND', hint: expect.stringContaining('cairn ls') });
  });

  it('checks the project manifest', async () => {
    const none = await project.run(['air', 'check']);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/default governance/);
    project.write('.cairn/manifest.air.json', '{ "$kind": "manifest", "schemas": [], ');
    const broken = await project.run(['air', 'check', '--json']);
    expect(broken.code).toBe(1);
    expect(JSON.stringify(resultOf(broken).problems)).toMatch(/manifest\.air\.json/);
    const spawn = await project.run(['spawn', '--code', 'fix.js', 'blocked', '--json']);
    expect(spawn.code).toBe(1);
    expect(resultOf(spawn)).toMatchObject({ code: 'CAIRN_MANIFEST' });
  });
});

describe('Ctrl-C during cairn spawn', () => {
  /** Runs `cairn spawn --wait` of a program that never ends, presses Ctrl-C once it runs, and returns what it printed. */
  async function interruptSpawn(wallMs: number): Promise<{ code: number | null; stderr: string; id: string }> {
    project.write('spin.js', 'while (true) {}\n');
    const child = spawn(process.execPath, [CAIRN_BIN, 'spawn', '--wait', '--code', 'spin.js', 'spin', '--wall-ms', String(wallMs)], {
      cwd: project.root,
      env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let ended = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on('close', (code) => {
        ended = true;
        resolve(code);
      }),
    );
    const hang = setTimeout(() => child.kill('SIGKILL'), 120_000);
    try {
      for (let i = 0; i < 1200 && !ended && !/started \(run 1\)/.test(output); i++)
        await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGINT');
      const code = await exited;
      const id = /spawned (\w+)/.exec(output)?.[1];
      if (id === undefined) throw new Error(`cairn spawn printed no id (exit ${code}): ${output}`);
      return { code, stderr: output, id };
    } finally {
      clearTimeout(hang);
    }
  }

  it('without a daemon says the agent stops with the command, and the next command records it as interrupted', async () => {
    const { code, stderr, id } = await interruptSpawn(100_000);
    expect(code).toBe(130);
    expect(stderr).toContain(
      `interrupted: ${id} ran in this command and stops with it; the next cairn command records it as failed (interrupted)`,
    );
    expect(resultOf(await project.run(['status', id, '--json'])).agent).toMatchObject({
      state: 'failed',
      failure: { code: 'interrupted' },
    });
  });

  it('with a daemon says the agent runs on there', async () => {
    expect((await project.run(['up', '--detach'])).code).toBe(0);
    try {
      // a wall limit that ends the agent soon after, so the daemon stops without waiting long for it
      const { code, stderr, id } = await interruptSpawn(15_000);
      expect(code).toBe(130);
      expect(stderr).toContain(`stopped following ${id}; it runs on in the daemon: \`cairn status ${id}\` shows where it stands`);
      expect(resultOf(await project.run(['status', id, '--json'])).agent).toMatchObject({ state: 'running' });
    } finally {
      await project.run(['down']);
    }
  });
});

describe('bad ground', () => {
  it('says what to do with a corrupt stable.db, and loses nothing', async () => {
    await spawnReviewing();
    writeFileSync(join(project.root, '.agentfs', 'stable.db'), 'this is not a database');
    const run = await project.run(['ls', '--json']);
    expect(run.code).toBe(1);
    expect(resultOf(run)).toMatchObject({ code: 'CAIRN_CORRUPT', hint: expect.stringContaining('stable.db') });
    expect(readFileSync(join(project.root, 'src/greet.js'), 'utf8')).toBe(FILES['src/greet.js']);
  });

  it('a daemon that cannot start shows the lines of its own start from the log, not those of starts before', async () => {
    await spawnReviewing();
    writeFileSync(join(project.root, '.agentfs', 'stable.db'), 'this is not a database');
    for (let start = 0; start < 2; start++) {
      const up = await project.run(['up', '--detach']);
      expect(up.code).toBe(1);
      expect(up.stderr).toMatch(/^error: the daemon stopped as it started \(exit 1\)\n/);
      // the log's lines of this start, each once
      expect(up.stderr.match(/stable\.db cannot be opened/g)).toHaveLength(1);
    }
  });

  it.runIf(AS_ROOT)('refuses a project it cannot write to, as another user', async () => {
    chmodSync(project.base, 0o755);
    chmodSync(project.root, 0o755);
    const run = await project.run(['queue', 'a task'], { uid: 65534, env: { CAIRN_HOME: join('/tmp', `cairn-nobody-${process.pid}`) } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot write to .*\.agentfs: permission denied/);
    expect(existsSync(join(project.root, '.agentfs'))).toBe(false);
    rmSync(join('/tmp', `cairn-nobody-${process.pid}`), { recursive: true, force: true });
  });
});

describe('with a daemon', () => {
  it('serves several CLIs at once, follows events, and stops cleanly', async () => {
    const up = await project.run(['up', '--detach']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(/cairn is up in the background \(pid \d+\)/);
    const second = await project.run(['up', '--detach']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already serves/);
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, i) => project.run(['spawn', '--code', 'fix.js', `task ${i}`, '--wait', '--json'])),
    );
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/SQLITE_BUSY|database is locked/);
      expect(resultOf(run).agent).toMatchObject({ state: 'reviewing' });
    }
    const listed = await project.run(['ls', '--json']);
    expect((resultOf(listed).agents as unknown[]).length).toBe(4);
    const down = await project.run(['down']);
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(/stopped the daemon/);
    expect((await project.run(['down'])).stdout).toMatch(/no daemon runs/);
  });

  it('recovers from a daemon killed with SIGKILL: the stale socket is cleaned, and its running agent runs again once', async () => {
    // The program spins until the human creates go-on.txt; the runs it does not finish are cut off by the kills.
    project.write(
      'slow.js',
      `if (await file_exists('go-on.txt')) {\n  await write_file('done.txt', 'yes');\n  await submit_result('done', ['done.txt']);\n} else {\n  await write_file('started.txt', 'yes');\n  while (true) {}\n}\n`,
    );
    const killDaemonWhileRunning = async (id: string) => {
      const up = await project.run(['up', '--detach']);
      expect(up.code, up.stderr).toBe(0);
      const pid = Number(/pid (\d+)/.exec(up.stdout)![1]);
      for (let i = 0; i < 600; i++) {
        const status = resultOf(await project.run(['status', id, '--json'])).agent as { state: string };
        if (status.state === 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // kill only once the program has written started.txt (its journal shows the write), so the run is cut off mid-way
      for (let i = 0; i < 600; i++) {
        const log = await project.run(['log', id, '--no-pager']);
        if (log.stdout.includes('started.txt')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      process.kill(pid, 'SIGKILL');
    };
    const queued = await project.run(['queue', '--code', 'slow.js', 'spin', '--json', '--wall-ms', '100000', '--cpu-ms', '100000']);
    const id = (resultOf(queued).agent as { id: string }).id;
    await killDaemonWhileRunning(id);
    const after = await project.run(['status', id, '--json']);
    expect(resultOf(after).agent).toMatchObject({ state: 'queued' });
    expect((await project.run(['status', id])).stdout).toMatch(/queued again: the process running the agent stopped/);
    const down = await project.run(['down']);
    expect(down.stdout).toMatch(/cleaned up after one that was killed/);

    // Interrupted a second time: failed, with both runs' journals kept.
    await killDaemonWhileRunning(id);
    const twice = await project.run(['status', id, '--json']);
    expect(resultOf(twice).agent).toMatchObject({ state: 'failed', failure: { code: 'interrupted' } });
    expect((resultOf(twice).agent as { failure: { message: string } }).failure.message).toMatch(/again when it ran a second time/);
    await project.run(['down']);

    // Once more, and this time the human lets it finish: it reaches reviewing, and `cairn log` shows the run it lost.
    const retry = await project.run(['queue', '--code', 'slow.js', 'spin again', '--json', '--wall-ms', '100000', '--cpu-ms', '100000']);
    const second = (resultOf(retry).agent as { id: string }).id;
    await killDaemonWhileRunning(second);
    project.write('go-on.txt', 'go\n');
    const again = await project.run(['up', '--detach']);
    expect(again.code, again.stderr).toBe(0);
    let state = '';
    for (let i = 0; i < 600 && state !== 'reviewing'; i++) {
      state = (resultOf(await project.run(['status', second, '--json'])).agent as { state: string }).state;
      if (state !== 'reviewing') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(state).toBe('reviewing');
    const diff = await project.run(['diff', second]);
    expect(diff.stdout).toContain('done.txt');
    expect(diff.stdout).not.toContain('started.txt');
    // the run that counts is told apart from the one cut off, though both are run 1
    const status = (await project.run(['status', second])).stdout;
    expect(status).toMatch(/started \(run 1\)/);
    expect(status).toMatch(/started again \(run 1; the interrupted run was rolled back\)/);
    const log = await project.run(['log', second, '--no-pager']);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toMatch(/an earlier run, cut off/);
    expect(log.stdout).toMatch(/started\.txt/);
    expect(log.stdout).toMatch(/journal verified/);
    expect((await project.run(['down'])).code).toBe(0);
  });

  it('of three `cairn up --detach` at once exactly one daemon wins; the others say which one runs', async () => {
    const runs = await Promise.all([0, 1, 2].map(() => project.run(['up', '--detach'])));
    const won = runs.filter((run) => run.code === 0);
    expect(won, runs.map((r) => r.stdout + r.stderr).join('\n---\n')).toHaveLength(1);
    const pid = Number(/pid (\d+)/.exec(won[0]!.stdout)![1]);
    for (const lost of runs.filter((run) => run.code !== 0)) {
      expect(lost.code).toBe(1);
      expect(lost.stderr).toContain(`a daemon already serves ${project.root} (pid ${pid})`);
      expect(lost.stderr).not.toMatch(/SQLITE|database is locked/i);
    }
    const listed = await project.run(['ls', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const down = await project.run(['down']);
    expect(down.stdout).toContain(`stopped the daemon (pid ${pid})`);
  });

  it.runIf(AS_ROOT)('refuses a socket that belongs to another user', async () => {
    const { projectLayout } = await import('@cairn/orchestrator');
    const socketPath = projectLayout(project.root, project.home).socketPath;
    const { mkdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    mkdirSync(dirname(socketPath), { recursive: true });
    execFileSync('python3', ['-c', 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', socketPath]);
    chownSync(socketPath, 65534, 65534);
    const run = await project.run(['up']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/belongs to another user/);
    expect(existsSync(socketPath)).toBe(true);
  });
});

describe('the demo', () => {
  it('runs the whole tour on a fresh sample project with no model', async () => {
    const run = await project.run(['demo']);
    expect(run.code, run.stderr).toBe(0);
    for (const step of [
      '$ cairn spawn --code examples/use-const.js',
      '$ cairn accept',
      'merged with your edits',
      'conflict',
      '$ cairn reject',
      '$ cairn restore',
      '$ cairn undo',
      'excluded from reading by ".env*"',
      'reproduced',
      'No Ollama server answers',
    ]) {
      expect(run.stdout).toContain(step);
    }
  });
});
