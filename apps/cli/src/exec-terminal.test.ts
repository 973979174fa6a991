import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CAIRN_BIN, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

/** tmux gives the command a real terminal; CI installs it and requires it (CAIRN_REQUIRE_NVIM covers the terminal tools). */
const tmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
const required = (process.env.CAIRN_REQUIRE_NVIM ?? '') !== '' && process.env.CAIRN_REQUIRE_NVIM !== '0';
if (!tmux)
  process.stdout.write(`missing tmux: apt-get install tmux (${required ? 'required: the tests fail' : 'the tests are skipped'})\n`);
const withTmux = tmux || required ? it : it.skip;

let project: CliProject | undefined;
let session: string | undefined;
afterEach(() => {
  if (session !== undefined) spawnSync('tmux', ['kill-session', '-t', session]);
  session = undefined;
  project?.cleanup();
  project = undefined;
});

/** Runs `cairn …` in a tmux pane (a real terminal); the exit code lands in `done` when it ends. */
function inTerminal(p: CliProject, args: string[]): { done: string; pane: () => string } {
  session = `cairn-exec-${process.pid}-${Date.now()}`;
  const done = `${p.base}/done`;
  const quoted = args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  const line = `cd '${p.root}' && CAIRN_HOME='${p.home}' NO_COLOR=1 '${process.execPath}' '${CAIRN_BIN}' ${quoted}; echo $? > '${done}'; sleep 600`;
  execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '160', '-y', '40', line]);
  return { done, pane: () => execFileSync('tmux', ['capture-pane', '-p', '-t', session!]).toString() };
}

async function until(what: string, test: () => boolean): Promise<void> {
  for (let tries = 0; tries < 1200; tries++) {
    if (test()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`waited in vain for ${what}`);
}

describe('an agent CLI attached to the terminal', () => {
  withTmux(
    'is interactive: it reads what is typed, and its writes become the proposal',
    async () => {
      project = makeCliProject({ 'a.txt': 'a\n' });
      const term = inTerminal(project, ['spawn', '--exec', '--', 'sh', '-c', 'printf "name? "; read n; echo "$n" > typed.txt']);
      await until('the question', () => term.pane().includes('name?\n') || /name\? *$/m.test(term.pane()));
      execFileSync('tmux', ['send-keys', '-t', session!, 'hello there', 'Enter']);
      await until('the command to end', () => existsSync(term.done));
      expect(readFileSync(term.done, 'utf8').trim()).toBe('0');
      const listed = resultOf(await project.run(['ls', '--json'])) as { agents: { id: string; state: string }[] };
      const id = listed.agents[0]!.id;
      expect(listed.agents[0]!.state).toBe('reviewing');
      expect((await project.run(['diff', id, '--no-pager'])).stdout).toContain('+hello there');
      expect(existsSync(`${project.root}/typed.txt`)).toBe(false);
    },
    180_000,
  );

  withTmux(
    'Ctrl-C stops the command, with every process it started; what it wrote is a proposal marked interrupted',
    async () => {
      project = makeCliProject({ 'a.txt': 'a\n' });
      const marker = `sleep 601.${process.pid}`;
      const term = inTerminal(project, [
        'spawn',
        '--exec',
        '--',
        'sh',
        '-c',
        `echo part > p.txt; (${marker}) & echo ready-$((1 + 1)); ${marker}`,
      ]);
      await until('the command to run', () => term.pane().includes('ready-2'));
      execFileSync('tmux', ['send-keys', '-t', session!, 'C-c']);
      await until('the command to end', () => existsSync(term.done));
      const listed = resultOf(await project.run(['ls', '--json'])) as {
        agents: { id: string; state: string; summary: string; changes: { path: string }[] }[];
      };
      const agent = listed.agents[0]!;
      expect(agent.state).toBe('reviewing');
      expect(agent.summary).toMatch(/^interrupted: .*killed by SIGINT/);
      expect(agent.changes.map((c) => c.path)).toEqual(['p.txt']);
      // the kernel kills what was left in the namespace as its first process ends: give it a moment
      const left = () =>
        execFileSync('ps', ['-eo', 'args'])
          .toString()
          .split('\n')
          .some((line) => line.trim() === marker);
      await until('no process of the command left', () => !left());
    },
    180_000,
  );
});
