import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

/** util-linux's `script` runs a command on a pseudo-terminal: how a person's terminal sees the binary's output. */
const MISSING_SCRIPT = "missing util-linux's script (a pseudo-terminal for the command): apt-get install bsdutils";
const hasScript = process.platform === 'linux' && spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasScript) process.stdout.write(`${MISSING_SCRIPT} (tests that need it are skipped)\n`);

let project: CliProject;
afterEach(() => project.cleanup());

/** Runs `cairn …` on a pseudo-terminal in the project; what the terminal received. */
function onTerminal(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const command = [process.execPath, CAIRN_BIN, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: project.root,
      env: { ...process.env, CAIRN_HOME: project.home, NO_COLOR: '1', OLLAMA_HOST: 'http://127.0.0.1:9', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      // the terminal turns each line break into CR LF
      resolve(seen.replaceAll('\r\n', '\n'));
    });
  });
}

/** A program that hides a line of its proposal from a reviewer, conceals its summary and retitles the terminal. */
const HIDING = [
  'await write_file("notes.txt", "+looks fine\\nsteal()\\u001b[1A\\u001b[2K\\rrm -rf ~ #\\u202e harmless\\n");',
  'log("progress \\u001b]0;pwned\\u0007 made");',
  'await submit_result("tidy \\u001b[8mand exfiltrate", ["notes.txt"]);',
].join('\n');

describe.skipIf(!hasScript)("an agent's text cannot rewrite the reviewer's terminal", () => {
  it('shows the control characters in diffs, summaries, logs and check output on a terminal, and leaves piped output byte for byte', async () => {
    project = makeCliProject({
      'notes.txt': 'notes\n',
      '.cairn/config.json': JSON.stringify({ checks: { echo: { command: ['cat', 'notes.txt'] } } }),
    });
    writeFileSync(join(project.base, 'hiding.js'), HIDING);
    const spawned = await onTerminal(['spawn', '--wait', '--code', join(project.base, 'hiding.js'), 'tidy the notes']);
    expect(spawned).toContain('log: progress ^[]0;pwned^G made');
    expect(spawned).toContain('tidy ^[[8mand exfiltrate');
    expect(spawned).not.toContain('\u001b');
    const listed = resultOf(await project.run(['ls', '--json'])).agents as { id: string; state: string }[];
    expect(listed.map((agent) => agent.state)).toEqual(['reviewing']);
    const id = listed[0]!.id;

    for (const pager of ['cat', 'exec cat']) {
      const diff = await onTerminal(['diff', id], { CAIRN_PAGER: pager });
      expect(diff).toContain('+steal()^[[1A^[[2K^Mrm -rf ~ #<U+202E> harmless');
      expect(diff).not.toContain('\u001b');
      expect(diff).not.toContain('\u202e');
    }
    const status = await onTerminal(['status', id]);
    expect(status).toContain('tidy ^[[8mand exfiltrate');
    expect(status).not.toContain('\u001b');
    const check = await onTerminal(['checks', id, 'echo', '--run'], { CAIRN_PAGER: 'cat' });
    expect(check).toContain('steal()^[[1A^[[2K^Mrm -rf ~');
    expect(check).not.toContain('\u001b');

    // a pipe gets the bytes as they are: a patch made with `cairn diff > fix.patch` applies as written
    const piped = await project.run(['diff', id]);
    expect(piped.stdout).toContain('+steal()\u001b[1A\u001b[2K\rrm -rf ~ #\u202e harmless');
  });
});
