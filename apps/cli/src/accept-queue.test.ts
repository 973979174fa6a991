import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

// The check: every file in src/ is listed in list.txt, and value.txt is good. Where src/a.js is there (once A
// was accepted) it takes a while, so an accept that comes right after finds it still running.
const TEST_JS = `const fs = require('fs');
const listed = fs.readFileSync('list.txt', 'utf8').split('\\n').filter((line) => line && !line.startsWith('#'));
const missing = fs.readdirSync('src').filter((name) => !listed.includes(name));
const value = fs.readFileSync('value.txt', 'utf8').trim();
const finish = () => {
  console.log('missing: ' + missing.join(',') + '; value: ' + value);
  process.exit(missing.length === 0 && value === 'good' ? 0 : 1);
};
if (fs.existsSync('src/a.js') && fs.existsSync('slow-after-a')) setTimeout(finish, 4000);
else finish();
`;
const LIST = '# top\n# keep\nbase.js\n# keep\n# bottom\n';
const CONFIG = JSON.stringify({ checks: { test: { command: ['node', 'test.js'] } } });

/** An agent program that adds `src/<name>` and lists it in list.txt after `anchor`. */
const adds = (name: string, anchor: string) =>
  `await write_file('src/${name}', '// ${name}\\n');\n` +
  `const list = await read_file('list.txt');\n` +
  `await write_file('list.txt', list.replace(${JSON.stringify(`${anchor}\n`)}, ${JSON.stringify(`${anchor}\n${name}\n`)}));\n` +
  `await submit_result('adds ${name}', ['src/${name}', 'list.txt']);\n`;
const writes = (path: string, content: string) =>
  `await write_file(${JSON.stringify(path)}, ${JSON.stringify(content)});\nawait submit_result('writes ${path}', [${JSON.stringify(path)}]);\n`;

let project: CliProject;
beforeEach(() => {
  project = makeCliProject({
    'test.js': TEST_JS,
    'list.txt': LIST,
    'src/base.js': '// base\n',
    'value.txt': 'good\n',
    '.cairn/config.json': CONFIG,
  });
  project.write('a.js', adds('a.js', '# top'));
  project.write('b.js', adds('b.js', '# bottom'));
  project.write('c.js', writes('notes.txt', 'from c\n'));
  project.write('bad.js', writes('value.txt', 'bad\n'));
});
afterEach(() => project.cleanup());

async function spawn(code: string, wait = false): Promise<string> {
  const run = await project.run(['spawn', '--code', code, `run ${code}`, '--json', ...(wait ? ['--wait'] : [])]);
  expect(run.code, run.stderr).toBe(0);
  return (resultOf(run).agent as { id: string }).id;
}

async function stateOf(id: string): Promise<string> {
  return (resultOf(await project.run(['status', id, '--json'])).agent as { state: string }).state;
}

const read = (path: string) => readFileSync(join(project.root, path), 'utf8');

describe('cairn accept of several agents: the accept queue', () => {
  it('accepts three good proposals in a row with one command, each checked on the tree the one before left', async () => {
    const a = await spawn('a.js');
    const b = await spawn('b.js');
    const c = await spawn('c.js');
    const run = await project.run(['accept', a, b, c]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`3 accepted: ${a} ${b} ${c}`);
    // B's check passed only because its view held list.txt merged: A's line and B's, with src/a.js beside them
    expect(read('list.txt')).toBe('# top\na.js\n# keep\nbase.js\n# keep\n# bottom\nb.js\n');
    expect(read('notes.txt')).toBe('from c\n');
    for (const id of [a, b, c]) expect(await stateOf(id)).toBe('accepted');
  });

  it('stops at a proposal whose checks fail, says which went in and which are left queued', async () => {
    const a = await spawn('a.js');
    const bad = await spawn('bad.js');
    const c = await spawn('c.js');
    const run = await project.run(['accept', a, bad, c, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const result = resultOf(run);
    expect(result).toMatchObject({
      type: 'result',
      ok: false,
      accepts: [
        { id: a, status: 'accepted' },
        { id: bad, status: 'checks-failed', message: `agent ${bad}'s checks did not pass: test failed (exit 1)` },
        { id: c, status: 'left' },
      ],
    });
    expect(read('value.txt')).toBe('good\n');
    expect(existsSync(join(project.root, 'notes.txt'))).toBe(false);
    expect(await stateOf(bad)).toBe('reviewing');
    expect(await stateOf(c)).toBe('reviewing');

    const words = await project.run(['accept', c, bad]);
    expect(words.code).toBe(1);
    expect(words.stdout).toContain(`1 accepted: ${c}`);
    expect(words.stdout).toContain(`1 not accepted: ${bad}`);
    expect(words.stdout).toContain(`${bad}: stopped: agent ${bad}'s checks did not pass: test failed (exit 1)`);
  });

  it('with --keep-going accepts the rest after one that does not go in', async () => {
    const a = await spawn('a.js');
    const bad = await spawn('bad.js');
    const c = await spawn('c.js');
    const run = await project.run(['accept', a, bad, c, '--keep-going']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(`2 accepted: ${a} ${c}`);
    expect(run.stdout).toContain(`1 not accepted: ${bad}`);
    expect(run.stdout).not.toContain('left queued');
    expect(read('notes.txt')).toBe('from c\n');
    expect(read('value.txt')).toBe('good\n');
    expect(await stateOf(bad)).toBe('reviewing');
  });

  it('tells agents from paths, and refuses a word that names both', async () => {
    const a = await spawn('a.js');
    const c = await spawn('c.js');
    const mixed = await project.run(['accept', a, c, 'list.txt', '--force']);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('paths go with one agent only');
    writeFileSync(join(project.root, c), 'a file named like the agent\n');
    const both = await project.run(['accept', a, c]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`"${c}" names both an agent of this project and a path`);
    expect(both.stderr).toContain(`cairn accept ${a} -- ${c}`);
    // one agent with paths: the contract as it was
    const one = await project.run(['accept', a, 'src', '--json']);
    expect(one.code, one.stderr).toBe(0);
    expect(resultOf(one)).toMatchObject({ ok: true, applied: [{ path: 'src/a.js' }], accepts: [{ id: a, status: 'accepted' }] });
    expect(read('list.txt')).toBe(LIST);
  });

  it('checks again before accepting when the working tree moved with no daemon watching', async () => {
    const c = await spawn('c.js');
    expect(resultOf(await project.run(['checks', c, '--json']))).toMatchObject({ checks: [{ name: 'test', status: 'passed' }] });
    writeFileSync(join(project.root, 'value.txt'), 'bad\n');
    const run = await project.run(['accept', c]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toContain(`agent ${c}'s checks did not pass: test failed (exit 1)`);
    expect(existsSync(join(project.root, 'notes.txt'))).toBe(false);
    expect(await stateOf(c)).toBe('reviewing');
  });
});

describe('the accept queue in the daemon', () => {
  it('a single accept waits for checks the accept before it made stale, instead of refusing', async () => {
    expect((await project.run(['up', '--detach'])).code).toBe(0);
    try {
      const a = await spawn('a.js', true);
      const b = await spawn('b.js', true);
      writeFileSync(join(project.root, 'slow-after-a'), '');
      const first = await project.run(['accept', a]);
      expect(first.code, first.stderr).toBe(0);
      const second = await project.run(['accept', b, '--json']);
      expect(second.code, second.stdout).toBe(0);
      const events = second.json.filter((line) => line.type === 'event').map((line) => line.event as Record<string, unknown>);
      expect(events).toContainEqual(expect.objectContaining({ type: 'accept.waiting', agentId: b, for: 'checks', checks: ['test'] }));
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'check.finished', agentId: b, result: expect.objectContaining({ status: 'passed' }) }),
      );
      expect(resultOf(second)).toMatchObject({ ok: true, accepts: [{ id: b, status: 'accepted' }] });
      expect(read('list.txt')).toBe('# top\na.js\n# keep\nbase.js\n# keep\n# bottom\nb.js\n');
    } finally {
      await project.run(['down']);
    }
  });
});
