import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject;

afterEach(() => project.cleanup());

/**
 * Runs `cairn …` with its stdout going where `stdout` says: `closed`, a pipe whose reader has gone (as after
 * `| head -0`), or `full`, /dev/full (every write fails with ENOSPC). Resolves with the exit code and stderr.
 */
function runWithStdout(args: readonly string[], stdout: 'closed' | 'full'): Promise<{ code: number | null; stderr: string }> {
  const full = stdout === 'full' ? openSync('/dev/full', 'w') : undefined;
  const child = spawn(process.execPath, [CAIRN_BIN, ...args], {
    cwd: project.root,
    env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1', OLLAMA_HOST: 'http://127.0.0.1:9' },
    stdio: ['ignore', full ?? 'pipe', 'pipe'],
  });
  if (full !== undefined) closeSync(full);
  // the reader leaves before the command prints anything
  child.stdout?.destroy();
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

const PROGRAM = "await write_file('a.txt', 'agent\\n');\nawait submit_result('edit a', ['a.txt']);\n";
const NO_SPACE = 'cairn: stdout cannot be written (no space left on the device, ENOSPC); the output is incomplete';

async function stateOf(id: string): Promise<string> {
  const run = await project.run(['status', id, '--json']);
  return (resultOf(run).agent as { state: string }).state;
}

describe('a stdout that cannot be written', () => {
  it('a closed pipe ends a command that reads quietly, and a spawn --wait runs its agent to the end', async () => {
    project = makeCliProject({ 'a.txt': 'mine\n' });
    writeFileSync(join(project.base, 'edit.js'), PROGRAM);
    const spawned = await runWithStdout(['spawn', '--wait', '--code', join(project.base, 'edit.js'), 'edit a'], 'closed');
    expect(spawned.stderr).not.toMatch(/\n\s+at |EPIPE/);
    expect(spawned.code).toBe(0);
    const [agent] = resultOf(await project.run(['ls', '--json'])).agents as { id: string; state: string }[];
    expect(agent!.state).toBe('reviewing');
    const listed = await runWithStdout(['ls'], 'closed');
    expect(listed).toEqual({ code: 0, stderr: '' });
  });

  it('a full disk: one line on stderr; a command that reads fails, work that was done stays done and exits 0', async () => {
    project = makeCliProject({ 'a.txt': 'mine\n' });
    writeFileSync(join(project.base, 'edit.js'), PROGRAM);
    const spawned = await runWithStdout(['spawn', '--code', join(project.base, 'edit.js'), 'edit a'], 'full');
    expect(spawned.stderr.trim()).toBe(NO_SPACE);
    expect(spawned.code).toBe(0);
    const [agent] = resultOf(await project.run(['ls', '--json'])).agents as { id: string }[];
    expect(await stateOf(agent!.id)).toBe('reviewing');

    const accepted = await runWithStdout(['accept', agent!.id], 'full');
    expect(accepted.stderr.trim()).toBe(NO_SPACE);
    expect(accepted.code).toBe(0);
    expect(readFileSync(join(project.root, 'a.txt'), 'utf8')).toBe('agent\n');
    expect(await stateOf(agent!.id)).toBe('accepted');

    const listed = await runWithStdout(['ls'], 'full');
    expect(listed.stderr.trim()).toBe(NO_SPACE);
    expect(listed.code).toBe(1);
    const json = await runWithStdout(['diff', agent!.id, '--json'], 'full');
    expect(json.stderr.trim()).toBe(NO_SPACE);
    expect(json.code).toBe(1);
    expect(existsSync(join(project.root, 'a.txt'))).toBe(true);
  });
});
