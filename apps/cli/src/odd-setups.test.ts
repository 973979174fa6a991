import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf, runCairn } from './test-support/run-cairn.js';

let project: CliProject;

afterEach(() => project.cleanup());

const PROGRAM = "await write_file('a.txt', 'agent\\n');\nawait submit_result('edit a', ['a.txt']);\n";

describe('a relative CAIRN_HOME', () => {
  it('is read from the folder the command starts in, and never lands inside the project', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    writeFileSync(join(project.base, 'edit.js'), PROGRAM);
    const inside = await project.run(['queue', 'a task'], { env: { CAIRN_HOME: 'cairn-state' } });
    expect(inside.code).toBe(1);
    expect(inside.stderr).toContain(
      `error: CAIRN_HOME ${join(project.root, 'cairn-state')} is inside the project ${project.root}: Cairn would import its own previews, state and socket as project files`,
    );
    expect(existsSync(join(project.root, 'cairn-state'))).toBe(false);
    // from a folder outside the project, it is a folder there, and stays one for the daemon it starts
    const up = await project.run(['up', '--detach', '--project', project.root, '--json'], {
      cwd: project.base,
      env: { CAIRN_HOME: 'state' },
    });
    expect(up.code, up.stderr).toBe(0);
    expect(existsSync(join(project.base, 'state', 'projects'))).toBe(true);
    const down = await project.run(['down', '--project', project.root], { cwd: project.base, env: { CAIRN_HOME: 'state' } });
    expect(down.stdout, down.stderr).toContain('stopped the daemon');
    expect(readdirSync(project.root, { recursive: true }).map(String)).not.toContainEqual(expect.stringMatching(/state|projects/));
  });
});

describe('wrongly typed settings in .cairn/config.json', () => {
  it.each([
    [{ workingTree: { fsync: 'yes' } }, '.cairn/config.json "workingTree.fsync" must be true or false'],
    [{ workingTree: true }, '.cairn/config.json "workingTree" must be an object'],
    [{ inbox: { requirePassingChecks: 1 } }, '.cairn/config.json "inbox.requirePassingChecks" must be true or false'],
    [{ inbox: [] }, '.cairn/config.json "inbox" must be an object'],
    [{ workers: { gpu1: 7 } }, `.cairn/config.json "workers.gpu1" must be the worker's public key (a text)`],
    [{ workers: 'gpu1' }, '.cairn/config.json "workers" must map each worker name to its public key'],
  ])('%j is refused with CAIRN_CONFIG naming the entry, at spawn and at up', async (config, message) => {
    project = makeCliProject({ 'a.txt': 'a\n', '.cairn/config.json': JSON.stringify(config) });
    writeFileSync(join(project.base, 'edit.js'), PROGRAM);
    const spawned = await project.run(['spawn', '--code', join(project.base, 'edit.js'), 'edit', '--json']);
    expect(spawned.code).toBe(1);
    expect(resultOf(spawned)).toMatchObject({ type: 'error', code: 'CAIRN_CONFIG', message });
    const up = await project.run(['up', '--json']);
    expect(up.code).toBe(1);
    expect(resultOf(up)).toMatchObject({ type: 'error', code: 'CAIRN_CONFIG', message });
  });

  it('a top-level key Cairn does not know is named in a warning, and ignored', async () => {
    project = makeCliProject({ 'a.txt': 'a\n', '.cairn/config.json': JSON.stringify({ check: { test: { command: ['true'] } } }) });
    const queued = await project.run(['queue', 'a task']);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stderr).toContain(
      'warning: .cairn/config.json: "check" is not a setting Cairn knows (checks, model, inbox, workingTree, workers, queue, serveWorkers, exec); it is ignored',
    );
  });
});

describe('--code names something that is not a file', () => {
  it('a FIFO and /dev/zero are refused at once, without waiting or reading without end', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    const fifo = join(project.base, 'prog.js');
    execFileSync('mkfifo', [fifo]);
    const fromFifo = await runCairn(['spawn', '--code', fifo, 'edit'], { cwd: project.root, home: project.home, timeoutMs: 30_000 });
    expect(fromFifo.code).toBe(2);
    expect(fromFifo.stderr).toContain(`error: cannot read the program ${fifo}: it is a FIFO, not a file`);
    const fromZero = await runCairn(['spawn', '--code', '/dev/zero', 'edit'], { cwd: project.root, home: project.home, timeoutMs: 30_000 });
    expect(fromZero.code).toBe(2);
    expect(fromZero.stderr).toContain('error: cannot read the program /dev/zero: it is a device, not a file');
    writeFileSync(join(project.base, 'big.js'), Buffer.alloc(5 * 1024 * 1024, 0x20));
    const big = await project.run(['spawn', '--code', join(project.base, 'big.js'), 'edit']);
    expect(big.code).toBe(2);
    expect(big.stderr).toContain('it is larger than 4 MiB');
  });
});

describe('a bare git repository', () => {
  it('is refused as a project, with why, and nothing is written into it', async () => {
    project = makeCliProject({});
    const bare = join(project.base, 'origin.git');
    execFileSync('git', ['init', '--bare', '--quiet', bare]);
    const hooksBefore = readdirSync(join(bare, 'hooks')).sort();
    writeFileSync(
      join(project.base, 'hook.js'),
      "await write_file('hooks/pre-receive', '#!/bin/sh\\necho owned\\n');\nawait submit_result('x', []);\n",
    );
    for (const cwd of [bare, join(bare, 'hooks')]) {
      const run = await runCairn(['spawn', '--code', join(project.base, 'hook.js'), 'x'], { cwd, home: project.home, timeoutMs: 60_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('a bare git repository, which has no working tree');
      expect(run.stderr).toContain(`hint: run Cairn in a clone with a working tree: \`git clone ${bare} DIR\``);
    }
    expect(existsSync(join(bare, '.agentfs'))).toBe(false);
    expect(existsSync(join(bare, 'hooks', '.agentfs'))).toBe(false);
    expect(readdirSync(join(bare, 'hooks')).sort()).toEqual(hooksBefore);
    // a clone of it is a project
    const clone = join(project.base, 'clone');
    execFileSync('git', ['clone', '--quiet', bare, clone], { stdio: 'ignore' });
    mkdirSync(join(clone, 'src'));
    writeFileSync(join(clone, 'src', 'a.txt'), 'a\n');
    const inClone = await runCairn(['queue', 'a task'], { cwd: clone, home: project.home, timeoutMs: 60_000 });
    expect(inClone.code, inClone.stderr).toBe(0);
  });
});

/** True when this machine lets an unprivileged user namespace bind-mount a folder read-only (as the checks' sealed view does). */
function canMountReadOnly(): boolean {
  try {
    execFileSync(
      'unshare',
      ['--user', '--map-root-user', '--mount', 'sh', '-c', 'mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp'],
      {
        stdio: 'ignore',
      },
    );
    return true;
  } catch {
    return false;
  }
}

describe('a project on a read-only file system', () => {
  it.runIf(canMountReadOnly())('commands that only read work, saying once that it could not be brought up to date', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    writeFileSync(join(project.base, 'edit.js'), PROGRAM);
    const spawned = await project.run(['spawn', '--code', join(project.base, 'edit.js'), 'edit a', '--json']);
    const id = (resultOf(spawned).agent as { id: string }).id;
    // the project and CAIRN_HOME are mounted read-only, as on a read-only disk; the commands run in there
    const script = [
      `mount --bind ${project.base} ${project.base} && mount -o remount,bind,ro ${project.base} || exit 99`,
      ...[['ls'], ['status', id], ['diff', id, '--no-pager'], ['log', id, '--no-pager'], ['inbox'], ['accept', id]].map(
        (args) => `echo "== ${args[0]}"; "$0" "$1" ${args.join(' ')} 2>&1; echo "exit $?"`,
      ),
    ].join('\n');
    const output = execFileSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script, process.execPath, CAIRN_BIN], {
      cwd: project.root,
      env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1' },
      encoding: 'utf8',
    });
    const sections = Object.fromEntries(
      output
        .split(/^== /m)
        .filter(Boolean)
        .map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)]),
    );
    const note = `note: ${project.root} is on a read-only file system: Cairn shows it as it last saw it, without bringing it up to date`;
    for (const command of ['ls', 'status', 'diff', 'log', 'inbox']) {
      expect(sections[command], command).toContain('exit 0');
      expect(
        sections[command]!.split('\n').filter((line: string) => line === note),
        command,
      ).toHaveLength(1);
    }
    expect(sections.ls).toMatch(new RegExp(`${id}\\s+reviewing`));
    expect(sections.diff).toContain('+agent');
    expect(sections.log).toContain('journal verified');
    // a command that writes is refused, in one line
    expect(sections.accept).toContain('the file system is read-only');
    expect(sections.accept).toContain('exit 1');
    expect(sections.accept).not.toMatch(/\n\s+at /);
  });
});
