import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CairnEvent } from '@cairn/api';
import type { Project } from '@cairn/orchestrator';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '@cairn/orchestrator/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { FAILED_SIGNALS, type SignalWatcher, watchSignals } from './signals.js';

let temp: TempProject;
let project: Project;
let watcher: SignalWatcher;
const reported: CairnEvent[] = [];

afterEach(async () => {
  await watcher.close();
  await temp[Symbol.asyncDispose]();
  reported.length = 0;
});

async function start(): Promise<string> {
  temp = makeTempProject(SAMPLE_FILES);
  project = temp.open();
  const dir = project.layout.signalsDir;
  watcher = watchSignals(project, dir, (event) => reported.push(event));
  await watcher.ready;
  return dir;
}

/** Writes a signal as a tool should: a temp file, renamed into place. */
function signal(dir: string, name: string, text: string): void {
  writeFileSync(join(dir, `${name}.tmp`), text);
  renameSync(join(dir, `${name}.tmp`), join(dir, name));
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`waited 30 s for ${what}`);
}

describe('file signals', () => {
  it('spawn from plain text and from JSON, each checked as the API checks it, and the file is gone once done', async () => {
    const dir = await start();
    signal(dir, 'spawn-plain', 'tidy the readme');
    signal(dir, 'queue-json', JSON.stringify({ task: 'add a file', code: "await write_file('x.txt', 'x');", limits: { wallMs: 5000 } }));
    const agents = await until('two agents', async () => {
      const all = await project.agents();
      return all.length === 2 ? all : undefined;
    });
    expect(agents.map((a) => a.task).sort()).toEqual(['add a file', 'tidy the readme']);
    expect(agents.find((a) => a.task === 'add a file')).toMatchObject({ origin: 'code' });
    expect(agents.find((a) => a.task === 'tidy the readme')).toMatchObject({ origin: 'model', model: 'qwen2.5-coder:7b' });
    await until('the signals to go', () =>
      existsSync(join(dir, 'spawn-plain')) || existsSync(join(dir, 'queue-json')) ? undefined : true,
    );
  });

  it('moves a signal it cannot carry out to failed/ with the reason, and reports it', async () => {
    const dir = await start();
    const cases: [string, string, RegExp][] = [
      ['spawn-badlang', JSON.stringify({ task: 't', code: 'x', lang: 'ruby' }), /unknown language "ruby"/],
      ['spawn-badjson', '{ "task": ', /not valid JSON/],
      ['queue-notask', JSON.stringify({ code: 'x' }), /needs a "task" text/],
      ['accept-zzzz', '', /no agent "zzzz"/],
      ['launch-rocket', 'now', /unknown signal name/],
    ];
    for (const [name, text] of cases) signal(dir, name, text);
    for (const [name, , reason] of cases) {
      const why = await until(`${name} to fail`, () =>
        existsSync(join(dir, FAILED_SIGNALS, `${name}.reason`))
          ? readFileSync(join(dir, FAILED_SIGNALS, `${name}.reason`), 'utf8')
          : undefined,
      );
      expect(why).toMatch(reason);
      expect(existsSync(join(dir, name))).toBe(false);
      expect(reported).toContainEqual(expect.objectContaining({ type: 'error', code: 'signal', message: expect.stringContaining(name) }));
    }
    expect(await project.agents()).toEqual([]);
  });

  it('accepts and rejects by id, and ignores names that start with a dot or end in .tmp', async () => {
    const dir = await start();
    const made = await project.spawn('edit', { code: "await write_file('new.txt', 'hello\\n');" });
    await project.wait(made.id);
    writeFileSync(join(dir, '.hidden'), 'ignored');
    writeFileSync(join(dir, 'accept-half.tmp'), '');
    signal(dir, `accept-${made.id}`, '');
    const accepted = await until('the accept', () => (temp.exists('new.txt') ? temp.read('new.txt') : undefined));
    expect(accepted).toBe('hello\n');
    const other = await project.spawn('another', { code: "await write_file('other.txt', 'o');" });
    await project.wait(other.id);
    signal(dir, `reject-${other.id}`, 'not needed');
    const rejected = await until('the reject', async () => {
      const agent = await project.agent(other.id);
      return agent.state === 'rejected' ? agent : undefined;
    });
    expect(rejected.reason).toBe('not needed');
    expect((await project.agent(made.id)).state).toBe('accepted');
    expect(existsSync(join(dir, '.hidden'))).toBe(true);
    expect(existsSync(join(dir, 'accept-half.tmp'))).toBe(true);
  });
});
