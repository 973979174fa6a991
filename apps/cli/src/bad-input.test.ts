import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CairnRun, type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

const IS_ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

let project: CliProject;

afterEach(() => project.cleanup());

/** Spawns an agent running `code` (written to a file first) and returns its id once it is reviewing. */
async function spawnReviewing(code: string, task = 'edit', options: { uid?: number } = {}): Promise<string> {
  const file = `prog-${Math.random().toString(16).slice(2)}.js`;
  writeFileSync(join(project.base, file), code);
  if (options.uid !== undefined) chownSync(join(project.base, file), options.uid, options.uid);
  const run = await project.run(['spawn', '--code', join(project.base, file), task, '--json'], options);
  expect(run.code, run.stderr + run.stdout).toBe(0);
  const agent = resultOf(run).agent as { id: string; state: string; reason?: string };
  expect(agent.state, agent.reason).toBe('reviewing');
  return agent.id;
}

/** The error a human run printed: its one line and hint, with nothing else on stderr (no stack). */
function oneLineError(run: CairnRun): { message: string; hint: string | undefined } {
  const lines = run.stderr.trim().split('\n');
  expect(lines.length, run.stderr).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^error: /);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr).not.toContain('CAIRN_INTERNAL');
  return { message: lines[0]!.replace(/^error: /, ''), hint: lines[1]?.replace(/^hint: /, '') };
}

function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const name of readdirSync(dir, { recursive: true })) chownSync(join(dir, String(name)), uid, uid);
}

const EDIT_A_AND_B = `await write_file('src/a.txt', 'A\\n');\nawait write_file('src/b.txt', 'two\\n');\nawait submit_result('edit a and b', []);\n`;

describe('accept --force never loses your files', () => {
  it('leaves a folder that replaced a file, with its files, names the exact command for the rest, and undo restores exactly', async () => {
    project = makeCliProject({ 'src/a.txt': 'a\n', 'src/b.txt': 'one\n', 'bin/run.sh': '#!/bin/sh\necho base\n' });
    chmodSync(join(project.root, 'bin/run.sh'), 0o755);
    const id = await spawnReviewing(
      `${EDIT_A_AND_B.replace("await submit_result('edit a and b', []);\n", '')}await write_file('bin/run.sh', '#!/bin/sh\\necho agent\\n');\nawait submit_result('x', []);\n`,
    );
    rmSync(join(project.root, 'src/b.txt'));
    mkdirSync(join(project.root, 'src/b.txt'));
    writeFileSync(join(project.root, 'src/b.txt/notes.md'), 'my notes\n');
    writeFileSync(join(project.root, 'bin/run.sh'), '#!/bin/sh\necho mine\n');
    chmodSync(join(project.root, 'bin/run.sh'), 0o750);

    const plain = await project.run(['accept', id]);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain(
      'src/b.txt conflict: it is a folder now (it was a file when the agent started), and the agent proposes a file; a path that changed kind is never forced',
    );
    const forced = await project.run(['accept', id, '--force']);
    expect(forced.code).toBe(1);
    expect(forced.stdout).toContain('src/b.txt is never forced, even with --force: what is there now is of another kind');
    expect(forced.stdout).toContain(`Accept the other paths with \`cairn accept ${id} --partial --force\`.`);
    expect(readFileSync(join(project.root, 'src/b.txt/notes.md'), 'utf8')).toBe('my notes\n');
    expect(readFileSync(join(project.root, 'src/a.txt'), 'utf8')).toBe('a\n');

    const rest = await project.run(['accept', id, '--partial', '--force', '--json']);
    expect(rest.code).toBe(1);
    expect(resultOf(rest)).toMatchObject({
      applied: [
        { path: 'bin/run.sh', how: 'forced' },
        { path: 'src/a.txt', how: 'fast-forward' },
      ],
      conflicts: [{ path: 'src/b.txt', reason: 'type' }],
    });
    expect(readFileSync(join(project.root, 'bin/run.sh'), 'utf8')).toBe('#!/bin/sh\necho agent\n');
    expect(readFileSync(join(project.root, 'src/b.txt/notes.md'), 'utf8')).toBe('my notes\n');

    const undone = await project.run(['undo', id]);
    expect(undone.code, undone.stdout).toBe(0);
    expect(readFileSync(join(project.root, 'bin/run.sh'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
    expect(statSync(join(project.root, 'bin/run.sh')).mode & 0o777).toBe(0o750);
    expect(readFileSync(join(project.root, 'src/a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(project.root, 'src/b.txt/notes.md'), 'utf8')).toBe('my notes\n');
  });

  it('leaves a symlink that replaced a file during review, even one pointing at /etc/passwd', async () => {
    project = makeCliProject({ 'src/a.txt': 'a\n', 'src/b.txt': 'one\n' });
    const id = await spawnReviewing(EDIT_A_AND_B);
    rmSync(join(project.root, 'src/b.txt'));
    symlinkSync('/etc/passwd', join(project.root, 'src/b.txt'));
    const passwd = readFileSync('/etc/passwd', 'utf8');
    const run = await project.run(['accept', id, '--force', '--partial']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('src/b.txt conflict: it is a symbolic link now');
    expect(readlinkSync(join(project.root, 'src/b.txt'))).toBe('/etc/passwd');
    expect(readFileSync('/etc/passwd', 'utf8')).toBe(passwd);
  });
});

describe('one odd file never blocks a spawn', () => {
  it('skips a name that is not UTF-8 with one warning, lists it in `cairn status`, and never touches it', async () => {
    project = makeCliProject({ 'src/a.txt': 'a\n', 'src/b.txt': 'one\n' });
    const odd = Buffer.concat([Buffer.from(join(project.root, 'caf')), Buffer.from([0xe9, 0x2e, 0x74, 0x78, 0x74])]);
    writeFileSync(odd, 'latin-1 name\n');
    writeFileSync(join(project.base, 'fix.js'), EDIT_A_AND_B);
    const run = await project.run(['spawn', '--code', join(project.base, 'fix.js'), 'edit']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.trim().split('\n')).toEqual([
      'warning: skipped 1 entry agents will not see: caf\\xe9.txt (the name is not UTF-8); list them with `cairn status`',
    ]);
    const status = await project.run(['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/skipped: {2}1 entry the import leaves out/);
    expect(status.stdout).toMatch(/caf\\xe9\.txt\s+the name is not UTF-8/);
    expect(resultOf(await project.run(['status', '--json']))).toMatchObject({
      skipped: [{ path: 'caf\\xe9.txt', reason: 'the name is not UTF-8' }],
      agents: { reviewing: 1 },
    });
    const id = (resultOf(await project.run(['ls', '--json'])).agents as { id: string }[])[0]!.id;
    expect((await project.run(['accept', id])).code).toBe(0);
    expect(readFileSync(odd, 'utf8')).toBe('latin-1 name\n');
  });

  it('skips a file it may not read and a folder it may not list (as another user when run as root)', async () => {
    project = makeCliProject({ 'src/a.txt': 'a\n', 'src/b.txt': 'one\n', 'secret.txt': 'secret\n', 'locked/in.txt': 'in\n' });
    const uid = IS_ROOT ? NOBODY : undefined;
    if (uid !== undefined) {
      chmodSync(project.base, 0o755);
      mkdirSync(project.home);
      chownTree(project.base, uid);
      chownSync(join(project.root, 'secret.txt'), 0, 0);
      chownSync(join(project.root, 'locked'), 0, 0);
    }
    chmodSync(join(project.root, 'secret.txt'), 0);
    chmodSync(join(project.root, 'locked'), 0);
    try {
      const id = await spawnReviewing(
        `${EDIT_A_AND_B.replace("await submit_result('edit a and b', []);\n", '')}await write_file('secret.txt', 'agent\\n');\nawait submit_result('x', []);\n`,
        'edit',
        uid === undefined ? {} : { uid },
      );
      const status = await project.run(['status', '--json'], uid === undefined ? {} : { uid });
      expect(resultOf(status).skipped).toEqual([
        { path: 'locked', reason: 'the folder cannot be listed: permission denied' },
        { path: 'secret.txt', reason: 'permission denied' },
      ]);
      const accept = await project.run(['accept', id, '--partial'], uid === undefined ? {} : { uid });
      expect(accept.code).toBe(1);
      expect(accept.stdout).toContain('secret.txt conflict: Cairn cannot read secret.txt (permission denied), so it never writes over it');
      expect(readFileSync(join(project.root, 'src/a.txt'), 'utf8')).toBe('A\n');
      const ls = await project.run(['ls'], uid === undefined ? {} : { uid });
      expect(ls.code, ls.stderr).toBe(0);
    } finally {
      chmodSync(join(project.root, 'secret.txt'), 0o644);
      chmodSync(join(project.root, 'locked'), 0o755);
    }
    expect(readFileSync(join(project.root, 'secret.txt'), 'utf8')).toBe('secret\n');
  });
});

describe('a damaged bin.db has a way out', () => {
  it('every command says so in one line with `cairn repair`; repair keeps the file and rebuilds every agent', async () => {
    project = makeCliProject({ 'src/a.txt': 'a\n', 'src/b.txt': 'one\n', 'c.txt': 'c\n' });
    const accepted = await spawnReviewing(EDIT_A_AND_B, 'accepted one');
    const reviewing = await spawnReviewing(`await write_file('c.txt', 'C\\n');\nawait submit_result('edit c', []);\n`, 'reviewing one');
    const rejected = await spawnReviewing(`await write_file('d.txt', 'D\\n');\nawait submit_result('add d', []);\n`, 'rejected one');
    expect((await project.run(['accept', accepted])).code).toBe(0);
    expect((await project.run(['reject', rejected])).code).toBe(0);
    const bin = join(project.root, '.agentfs', 'bin.db');
    writeFileSync(join(project.base, 'x.js'), "await write_file('x.txt', 'x');\n");
    for (const damage of ['truncate', 'overwrite'] as const) {
      const copy = join(project.base, 'bin.copy');
      cpSync(bin, copy);
      if (damage === 'truncate') truncateSync(bin, 4096);
      else writeFileSync(bin, Buffer.alloc(64 * 1024, 0x61));
      for (const args of [
        ['ls'],
        ['status', reviewing],
        ['diff', reviewing],
        ['accept', reviewing],
        ['spawn', '--code', join(project.base, 'x.js'), 'task'],
      ]) {
        const run = await project.run(args);
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(1);
        const error = oneLineError(run);
        expect(error.message).toMatch(new RegExp(`^${bin.replace(/[.]/g, '\\.')} cannot be used: `));
        expect(error.hint).toBe('`cairn repair` keeps the damaged file and rebuilds the agent records from the agent databases');
      }
      if (damage === 'truncate') cpSync(copy, bin);
    }
    const repair = await project.run(['repair']);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(/^bin\.db was damaged: kept as .*bin\.damaged-\d{8}-\d{6}\.db, and a new one made$/m);
    expect(repair.stdout).toContain(`${accepted} accepted: accepted one`);
    expect(repair.stdout).toContain(`${reviewing} reviewing: reviewing one`);
    expect(repair.stdout).toContain(`${rejected} rejected: rejected one`);
    expect(repair.stdout).toMatch(/recovered 3 agents/);
    const kept = readdirSync(join(project.root, '.agentfs')).filter((name) => /^bin\.damaged-.*\.db$/.test(name));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(project.root, '.agentfs', kept[0]!))).toEqual(Buffer.alloc(64 * 1024, 0x61));
    const states = Object.fromEntries(
      (resultOf(await project.run(['ls', '--json'])).agents as { id: string; state: string }[]).map((a) => [a.id, a.state]),
    );
    expect(states).toEqual({ [accepted]: 'accepted', [reviewing]: 'reviewing', [rejected]: 'rejected' });
    expect((await project.run(['accept', reviewing])).code).toBe(0);
    expect(readFileSync(join(project.root, 'c.txt'), 'utf8')).toBe('C\n');
    expect((await project.run(['restore', rejected])).code).toBe(0);
    expect((await project.run(['undo', accepted])).code).toBe(0);
    expect(readFileSync(join(project.root, 'src/a.txt'), 'utf8')).toBe('a\n');
    const again = await project.run(['repair']);
    expect(again.stdout).toContain('nothing to repair');
  });

  it('a garbage agent database: the proposal is named damaged, reject discards it, and a failed restore changes nothing', async () => {
    project = makeCliProject({ 'src/a.txt': 'a\n', 'src/b.txt': 'one\n' });
    const id = await spawnReviewing(EDIT_A_AND_B);
    writeFileSync(join(project.root, '.agentfs', `agent-${id}.db`), Buffer.alloc(50_000, 0x7a));
    for (const args of [
      ['diff', id],
      ['accept', id],
    ]) {
      const run = await project.run(args);
      expect(run.code).toBe(1);
      expect(oneLineError(run)).toEqual({
        message: `proposal ${id} is damaged (not a SQLite database)`,
        hint: `\`cairn reject ${id}\` discards it`,
      });
    }
    expect((await project.run(['reject', id])).code).toBe(0);
    const restore = await project.run(['restore', id]);
    expect(restore.code).toBe(1);
    expect(oneLineError(restore).message).toBe(`proposal ${id} is damaged (not a SQLite database); it stays rejected`);
    expect((resultOf(await project.run(['status', id, '--json'])).agent as { state: string }).state).toBe('rejected');
    expect(existsSync(join(project.root, '.agentfs', `agent-${id}.db`))).toBe(false);
    expect(readFileSync(join(project.root, 'src/a.txt'), 'utf8')).toBe('a\n');
  });
});

describe('the smaller ones', () => {
  it('two accepts of different agents touching one file, run at once, queue and both merge', async () => {
    project = makeCliProject({ 'shared.txt': 'x\n' });
    for (let round = 0; round < 3; round++) {
      writeFileSync(join(project.root, 'shared.txt'), 'top\n1\n2\n3\n4\n5\n6\n7\nbottom\n');
      const top = await spawnReviewing(
        `const t = await read_file('shared.txt');\nawait write_file('shared.txt', t.replace('top', 'TOP'));\nawait submit_result('top', []);\n`,
      );
      const bottom = await spawnReviewing(
        `const t = await read_file('shared.txt');\nawait write_file('shared.txt', t.replace('bottom', 'BOTTOM'));\nawait submit_result('bottom', []);\n`,
      );
      const runs = await Promise.all([project.run(['accept', top]), project.run(['accept', bottom])]);
      expect(
        runs.map((r) => r.code),
        runs.map((r) => r.stdout + r.stderr).join('\n'),
      ).toEqual([0, 0]);
      expect(readFileSync(join(project.root, 'shared.txt'), 'utf8')).toBe('TOP\n1\n2\n3\n4\n5\n6\n7\nBOTTOM\n');
    }
  });

  it('protected paths in other letter case (as macOS and Windows see them) are refused to the program', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    const code = `
const results = [];
for (const path of ['.GIT/config', '.Git/hooks/pre-commit', '.ENV', '.Env.local', '.Cairn/config.json', '.AGENTFS/x', '.git./config']) {
  try { await write_file(path, 'x'); results.push(path + ' written'); } catch (e) { results.push(path + ' refused'); }
}
await write_file('results.txt', results.join('\\n') + '\\n');
await submit_result('tried', []);
`;
    const id = await spawnReviewing(code);
    expect((resultOf(await project.run(['status', id, '--json'])).agent as { changes: unknown[] }).changes).toEqual([
      { path: 'results.txt', status: 'added', kind: 'file' },
    ]);
    expect((await project.run(['accept', id])).code).toBe(0);
    expect(readFileSync(join(project.root, 'results.txt'), 'utf8').trim().split('\n')).toEqual([
      '.GIT/config refused',
      '.Git/hooks/pre-commit refused',
      '.ENV refused',
      '.Env.local refused',
      '.Cairn/config.json refused',
      '.AGENTFS/x refused',
      '.git./config refused',
    ]);
  });

  it('a 300-character file name is refused at the write with a clear error, and the rest of the proposal accepts', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    const code = `
let message = 'not refused';
try { await write_file('${'n'.repeat(300)}.txt', 'x'); } catch (e) { message = e.message; }
await write_file('why.txt', message + '\\n');
await submit_result('long name', []);
`;
    const id = await spawnReviewing(code);
    const accept = await project.run(['accept', id]);
    expect(accept.code, accept.stderr).toBe(0);
    expect(readFileSync(join(project.root, 'why.txt'), 'utf8')).toMatch(
      /^write_file: cannot create "n{80}…": the name "n{24}…" is 304 bytes long; file systems take at most 255 bytes per name\n$/,
    );
  });

  it('`cairn diff` quotes names with newlines, tabs, quotes and non-ASCII bytes as git does, and git apply takes it', async () => {
    project = makeCliProject({ 'old\tname.txt': 'x\n', 'sp ace.txt': 'y\n', 'q"uote.txt': 'z\n' });
    const before = join(project.base, 'before');
    cpSync(project.root, before, { recursive: true });
    const code = `
await write_file('new\\nline.txt', 'a\\n');
await write_file('tab\\there.txt', 'b\\n');
await write_file('café/ünï.txt', 'c\\n');
await write_file('old\\tname.txt', 'x2\\n');
await write_file('sp ace.txt', 'y2\\n');
await delete_file('q"uote.txt');
await submit_result('odd names', []);
`;
    const id = await spawnReviewing(code);
    const diff = await project.run(['diff', id, '--no-pager']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('diff --git "a/new\\nline.txt" "b/new\\nline.txt"');
    expect(diff.stdout).toContain('diff --git "a/caf\\303\\251/\\303\\274n\\303\\257.txt" "b/caf\\303\\251/\\303\\274n\\303\\257.txt"');
    expect(diff.stdout).toContain('--- "a/q\\"uote.txt"');
    writeFileSync(join(project.base, 'odd.patch'), diff.stdout);
    execFileSync('git', ['init', '-q'], { cwd: before });
    execFileSync('git', ['apply', join(project.base, 'odd.patch')], { cwd: before });
    expect((await project.run(['accept', id])).code).toBe(0);
    for (const name of ['new\nline.txt', 'tab\there.txt', 'café/ünï.txt', 'old\tname.txt', 'sp ace.txt'])
      expect(readFileSync(join(before, name), 'utf8')).toBe(readFileSync(join(project.root, name), 'utf8'));
    expect(existsSync(join(before, 'q"uote.txt'))).toBe(false);
  });
});

describe('odd projects a new user tries', () => {
  it('a project reached through a symbolic link has one daemon, whichever path names it', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    const link = join(project.base, 'link');
    symlinkSync(project.root, link);
    const up = await project.run(['up', '--detach', '--project', link]);
    expect(up.code, up.stderr).toBe(0);
    try {
      const second = await project.run(['up', '--detach', '--project', project.root]);
      expect(second.code).toBe(1);
      expect(oneLineError(second).message).toMatch(/^a daemon already serves /);
      expect(resultOf(await project.run(['status', '--json', '--project', project.root])).daemon).toBe(true);
    } finally {
      expect((await project.run(['down', '--project', project.root])).code).toBe(0);
    }
  });

  it('a folder above a changed file replaced by a symbolic link to /etc: nothing is read or written through it, nothing is blocked', async () => {
    project = makeCliProject({ 'conf/app.txt': 'app\n', 'b.txt': 'b\n' });
    const id = await spawnReviewing(
      `await write_file('conf/app.txt', 'agent\\n');\nawait write_file('conf/passwd', 'planted\\n');\nawait write_file('b.txt', 'B\\n');\nawait submit_result('x', []);\n`,
    );
    rmSync(join(project.root, 'conf'), { recursive: true });
    symlinkSync('/etc', join(project.root, 'conf'));
    const passwd = readFileSync('/etc/passwd', 'utf8');
    const accept = await project.run(['accept', id, '--force', '--partial']);
    expect(accept.code).toBe(1);
    expect(accept.stdout).toContain(
      'conf/passwd conflict: conf, a folder above it, is a symbolic link now; Cairn never replaces it or writes through it',
    );
    expect(accept.stdout).not.toContain('root:');
    expect(readFileSync('/etc/passwd', 'utf8')).toBe(passwd);
    expect(existsSync('/etc/app.txt')).toBe(false);
    expect(readFileSync(join(project.root, 'b.txt'), 'utf8')).toBe('B\n');
    const ls = await project.run(['ls']);
    expect(ls.code, ls.stderr).toBe(0);
    expect((await project.run(['diff', id])).stdout).not.toContain('root:');
  });

  it('a read-only file or folder at accept is never replaced; the rest lands and a retry finishes', async () => {
    project = makeCliProject({ 'a.txt': 'a\n', 'src/s.txt': 's\n', 'ok.txt': 'ok\n' });
    const uid = IS_ROOT ? NOBODY : undefined;
    const as = uid === undefined ? {} : { uid };
    if (uid !== undefined) {
      chmodSync(project.base, 0o755);
      mkdirSync(project.home);
      chownTree(project.base, uid);
    }
    const id = await spawnReviewing(
      `await write_file('a.txt', 'A\\n');\nawait write_file('src/s.txt', 'S\\n');\nawait write_file('ok.txt', 'OK\\n');\nawait submit_result('x', []);\n`,
      'edit',
      as,
    );
    chmodSync(join(project.root, 'a.txt'), 0o444);
    chmodSync(join(project.root, 'src'), 0o555);
    try {
      const accept = await project.run(['accept', id], as);
      expect(accept.code).toBe(1);
      expect(accept.stdout).toContain('a.txt conflict: it could not be written: the file is read-only for you; Cairn does not replace it');
      expect(accept.stdout).toContain('src/s.txt conflict: it could not be written: permission denied');
      expect(readFileSync(join(project.root, 'a.txt'), 'utf8')).toBe('a\n');
      expect(readFileSync(join(project.root, 'ok.txt'), 'utf8')).toBe('OK\n');
      expect((await project.run(['ls'], as)).code).toBe(0);
    } finally {
      chmodSync(join(project.root, 'src'), 0o755);
      chmodSync(join(project.root, 'a.txt'), 0o644);
    }
    const retry = await project.run(['accept', id], as);
    expect(retry.code, retry.stdout).toBe(0);
    expect(readFileSync(join(project.root, 'src/s.txt'), 'utf8')).toBe('S\n');
    expect(statSync(join(project.root, 'a.txt')).mode & 0o777).toBe(0o644);
  });

  it('a tree larger than the room left on the disk is refused before the import writes, in words, and imports once it fits', async (test) => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    // a file that says it holds 15 TiB and takes no room (sparse): no ordinary disk has room to import it
    const huge = join(project.root, 'disk-image.raw');
    writeFileSync(huge, '');
    try {
      truncateSync(huge, 15 * 1024 ** 4);
    } catch {
      return test.skip("the temp folder's file system cannot hold a 15 TiB (sparse) file");
    }
    if (statfsSync(project.root).bavail * statfsSync(project.root).bsize > 14 * 1024 ** 4)
      return test.skip("the temp folder's disk has room for 15 TiB");
    writeFileSync(join(project.base, 'fix.js'), `await write_file('a.txt', 'A\\n');\nawait submit_result('x', ['a.txt']);\n`);
    const refused = await project.run(['spawn', '--code', join(project.base, 'fix.js'), 'edit']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error: not enough room on the disk: importing 15 TB of files needs about \d+ TB free beside .*\.agentfs, and its disk has [\d.]+ [MGT]B\n/,
    );
    expect(refused.stderr).toContain('nothing was written');
    expect((await project.run(['ls'])).stdout).toContain('no agents yet');
    // the large file left out (a .gitignore), the spawn goes through
    writeFileSync(join(project.root, '.gitignore'), '*.raw\n');
    const spawned = await project.run(['spawn', '--code', join(project.base, 'fix.js'), 'edit']);
    expect(spawned.code, spawned.stderr).toBe(0);
  });

  it('a folder named like an agent database is left alone: no warning, nothing to repair', async () => {
    project = makeCliProject({ 'a.txt': 'a\n' });
    await spawnReviewing(`await write_file('a.txt', 'A\\n');\nawait submit_result('x', []);\n`);
    mkdirSync(join(project.root, '.agentfs', 'agent-beef.db'));
    mkdirSync(join(project.root, 'agent-cafe.db'));
    writeFileSync(join(project.root, 'agent-cafe.db', 'notes.txt'), 'mine\n');
    const status = await project.run(['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain('no record');
    const repair = await project.run(['repair']);
    expect(repair.code, repair.stdout).toBe(0);
    expect(repair.stdout).toContain('nothing to repair');
    expect(readFileSync(join(project.root, 'agent-cafe.db', 'notes.txt'), 'utf8')).toBe('mine\n');
  });
});
