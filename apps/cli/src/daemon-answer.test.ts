import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive as alive, projectLayout } from '@cairn/orchestrator';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackgroundCairn, startCairn } from './test-support/background-cairn.js';
import { type CliProject, makeCliProject, resultOf, runCairn } from './test-support/run-cairn.js';

let project: CliProject;
let daemonPid: number | undefined;
let follower: BackgroundCairn | undefined;

afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  if (daemonPid !== undefined && alive(daemonPid)) process.kill(daemonPid, 'SIGKILL');
  daemonPid = undefined;
  project.cleanup();
});

/** The probe's bound the tests give the daemon: short, so a test finds a frozen daemon in seconds. */
const FAST = { CAIRN_DAEMON_TIMEOUT_MS: '1000' };

async function startDaemon(): Promise<number> {
  const up = await project.run(['up', '--detach', '--json']);
  expect(up.code, up.stderr + up.stdout).toBe(0);
  daemonPid = resultOf(up).pid as number;
  return daemonPid;
}

/** Runs `cairn …` with a limit that only catches a hang (a command that hangs is killed, and fails the test). */
function run(args: readonly string[], env: NodeJS.ProcessEnv = FAST) {
  return runCairn(args, { cwd: project.root, home: project.home, env, timeoutMs: 60_000 });
}

describe('a daemon that does not answer', () => {
  it('stopped with SIGSTOP: commands give up with CAIRN_DAEMON and what to do, and `cairn down` stops it', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    const pid = await startDaemon();
    expect((await run(['ls'])).code).toBe(0);
    process.kill(pid, 'SIGSTOP');

    const listed = await run(['ls']);
    expect(listed.code, listed.stderr).toBe(1);
    expect(listed.stderr).toMatch(
      new RegExp(
        `^error: the daemon \\(pid ${pid}\\) does not answer: a request waited [\\d.]+ s, and a second request got no answer in 1 s\\n`,
      ),
    );
    expect(listed.stderr).toContain(
      `hint: \`cairn down\` stops it (or \`kill ${pid}\`, then \`kill -9 ${pid}\` if it stays); one stopped with Ctrl-Z or SIGSTOP goes on after \`kill -CONT ${pid}\``,
    );
    const json = await run(['status', '--json']);
    expect(json.code).toBe(1);
    expect(resultOf(json)).toMatchObject({ type: 'error', code: 'CAIRN_DAEMON' });

    const down = await run(['down']);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toContain(`stopped the daemon (pid ${pid}): it did not answer, so it was sent SIGTERM`);
    expect(alive(pid)).toBe(false);
    const after = await run(['ls']);
    expect(after.code, after.stderr).toBe(0);
  });

  it('a `spawn --wait` following an agent gives up once the daemon stops answering', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    const pid = await startDaemon();
    writeFileSync(join(project.base, 'loop.js'), "for (;;) await list_dir('.');\n");
    follower = startCairn(['spawn', '--wait', '--wall-ms', '20000', '--code', join(project.base, 'loop.js'), 'loop'], {
      cwd: project.root,
      home: project.home,
      env: FAST,
    });
    await follower.waitFor((line) => (line.event as { type?: string } | undefined)?.type === 'agent.started');
    process.kill(pid, 'SIGSTOP');
    const error = await follower.waitFor((line) => line.type === 'error', 60_000);
    expect(error).toMatchObject({ code: 'CAIRN_DAEMON', message: expect.stringContaining(`the daemon (pid ${pid}) does not answer`) });
    await new Promise((resolve) => follower!.child.once('exit', resolve));
    expect(follower.child.exitCode).toBe(1);
  });
});

describe('file signals never stall the daemon', () => {
  it('a FIFO in signals/ is refused without being opened for a blocking read; the daemon goes on answering', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    await startDaemon();
    const signals = projectLayout(project.root, project.home).signalsDir;
    execFileSync('mkfifo', [join(signals, 'spawn-fifo')]);
    const reason = join(signals, 'failed', 'spawn-fifo.reason');
    for (let i = 0; i < 1200 && !existsSync(reason); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readFileSync(reason, 'utf8').trim()).toBe('only regular files are read as signals, and this is a FIFO');
    const listed = await run(['ls']);
    expect(listed.code, listed.stderr).toBe(0);
    // a regular signal still works
    writeFileSync(join(signals, 'queue-plain'), 'tidy up');
    for (let i = 0; i < 1200 && existsSync(join(signals, 'queue-plain')); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const agents = resultOf(await run(['ls', '--json'])).agents as { task: string }[];
    expect(agents.map((a) => a.task)).toEqual(['tidy up']);
  });
});
