import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCairnError } from '@cairn/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { makeTempProject, type TempProject } from '../testing/temp-project.js';

const CHILD = fileURLToPath(new URL('../../test/fixtures/accept-child.mjs', import.meta.url));

let temp: TempProject;
let project: Project;

beforeEach(async () => {
  temp = makeTempProject({ 'src/a.txt': 'a\n', 'src/b.txt': 'one\n', 'run.sh': '#!/bin/sh\necho base\n' });
  project = temp.open();
  await project.sync();
});

afterEach(async () => {
  await project.close();
  temp.cleanup();
});

async function reviewing(code: string): Promise<string> {
  const agent = await project.spawn('edit', { code });
  const done = await project.wait(agent.id);
  expect(done.state, done.reason).toBe('reviewing');
  return agent.id;
}

const EDIT_BOTH = `await write_file('src/a.txt', 'A\\n');\nawait write_file('src/b.txt', 'two\\n');\nawait submit_result('both', []);\n`;

describe('accept --force never loses the human files', () => {
  it('leaves a folder that replaced the file, with its files, and names the kind change', async () => {
    const id = await reviewing(EDIT_BOTH);
    rmSync(join(temp.root, 'src/b.txt'));
    mkdirSync(join(temp.root, 'src/b.txt'));
    writeFileSync(join(temp.root, 'src/b.txt/notes.md'), 'my notes\n');
    const forced = await project.accept(id, { force: true });
    expect(forced.ok).toBe(false);
    expect(forced.applied).toEqual([]);
    expect(forced.conflicts).toEqual([expect.objectContaining({ path: 'src/b.txt', reason: 'type' })]);
    expect(forced.conflicts[0]!.detail).toMatch(/a folder now .*was a file.*proposes a file; a path that changed kind is never forced/);
    expect(temp.read('src/b.txt/notes.md')).toBe('my notes\n');
    expect(temp.read('src/a.txt')).toBe('a\n');
    const partial = await project.accept(id, { force: true, partial: true });
    expect(partial.applied.map((a) => a.path)).toEqual(['src/a.txt']);
    expect(temp.read('src/a.txt')).toBe('A\n');
    expect(temp.read('src/b.txt/notes.md')).toBe('my notes\n');
    await project.undo(id);
    expect(temp.read('src/a.txt')).toBe('a\n');
    expect(temp.read('src/b.txt/notes.md')).toBe('my notes\n');
  });

  it('leaves a symlink that replaced the file', async () => {
    const id = await reviewing(EDIT_BOTH);
    rmSync(join(temp.root, 'src/b.txt'));
    symlinkSync('a.txt', join(temp.root, 'src/b.txt'));
    const forced = await project.accept(id, { force: true, partial: true });
    expect(forced.conflicts.map((c) => [c.path, c.reason])).toEqual([['src/b.txt', 'type']]);
    expect(readlinkSync(join(temp.root, 'src/b.txt'))).toBe('a.txt');
  });

  it('forces over a human edit, and undo gives back its bytes and mode exactly', async () => {
    const id = await reviewing(`await write_file('run.sh', '#!/bin/sh\\necho agent\\n');\nawait submit_result('x', []);\n`);
    writeFileSync(join(temp.root, 'run.sh'), '#!/bin/sh\necho human\n');
    const { chmodSync } = await import('node:fs');
    chmodSync(join(temp.root, 'run.sh'), 0o751);
    const forced = await project.accept(id, { force: true });
    expect(forced.applied).toEqual([{ path: 'run.sh', how: 'forced' }]);
    expect(temp.read('run.sh')).toContain('echo agent');
    const undone = await project.undo(id);
    expect(undone.ok).toBe(true);
    expect(temp.read('run.sh')).toBe('#!/bin/sh\necho human\n');
    expect(statSync(join(temp.root, 'run.sh')).mode & 0o777).toBe(0o751);
  });

  it('undo after the human undid the change by hand: nothing to write, and the change is a proposal again', async () => {
    const id = await reviewing(EDIT_BOTH);
    await project.accept(id);
    writeFileSync(join(temp.root, 'src/a.txt'), 'a\n');
    writeFileSync(join(temp.root, 'src/b.txt'), 'one\n');
    const undone = await project.undo(id);
    expect([undone.ok, undone.restored, undone.conflicts, undone.agent.state]).toEqual([true, ['src/a.txt', 'src/b.txt'], [], 'reviewing']);
    expect((await project.changes(id)).map((c) => c.path)).toEqual(['src/a.txt', 'src/b.txt']);
    expect((await project.accept(id)).ok).toBe(true);
    expect([temp.read('src/a.txt'), temp.read('src/b.txt')]).toEqual(['A\n', 'two\n']);
  });

  it('an undo that leaves every path as the human changed it undoes nothing: the agent stays accepted', async () => {
    const id = await reviewing(EDIT_BOTH);
    await project.accept(id);
    writeFileSync(join(temp.root, 'src/a.txt'), 'A, then mine\n');
    writeFileSync(join(temp.root, 'src/b.txt'), 'two, then mine\n');
    const plain = await project.undo(id);
    expect([plain.ok, plain.restored, plain.agent.state]).toEqual([false, [], 'accepted']);
    expect(plain.conflicts.map((c) => c.reason)).toEqual(['changed-since-accept', 'changed-since-accept']);
    expect((await project.agent(id)).changes?.map((c) => c.path)).toEqual(['src/a.txt', 'src/b.txt']);
    const forced = await project.undo(id, { force: true });
    expect([forced.restored, forced.agent.state]).toEqual([['src/a.txt', 'src/b.txt'], 'reviewing']);
    expect([temp.read('src/a.txt'), temp.read('src/b.txt')]).toEqual(['a\n', 'one\n']);
  });

  it('undo --force keeps a later human edit in the proposal, so accepting again brings it back byte for byte', async () => {
    const id = await reviewing(EDIT_BOTH);
    await project.accept(id);
    writeFileSync(join(temp.root, 'src/a.txt'), 'A, then mine\n');
    rmSync(join(temp.root, 'src/b.txt'));
    mkdirSync(join(temp.root, 'src/b.txt'));
    writeFileSync(join(temp.root, 'src/b.txt/keep.md'), 'keep\n');
    const plain = await project.undo(id);
    expect(plain.conflicts.map((c) => [c.path, c.reason]).sort()).toEqual([
      ['src/a.txt', 'changed-since-accept'],
      ['src/b.txt', 'kind-changed-since-accept'],
    ]);
    const forced = await project.undo(id, { force: true });
    expect(forced.restored).toEqual(['src/a.txt']);
    expect(forced.conflicts.map((c) => [c.path, c.reason])).toEqual([['src/b.txt', 'kind-changed-since-accept']]);
    expect(temp.read('src/a.txt')).toBe('a\n');
    expect(temp.read('src/b.txt/keep.md')).toBe('keep\n');
    const again = await project.accept(id, { paths: ['src/a.txt'] });
    expect(again.ok).toBe(true);
    expect(temp.read('src/a.txt')).toBe('A, then mine\n');
  });
});

describe('accepts queue on the project lock', () => {
  function acceptInChild(agentId: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--no-node-snapshot', CHILD, temp.root, temp.home, agentId], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`accept of ${agentId} failed: ${err}`))));
    });
  }

  it('two processes accepting two agents that edit one file both merge, round after round', async () => {
    for (let round = 0; round < 4; round++) {
      writeFileSync(join(temp.root, 'shared.txt'), 'top\n1\n2\n3\n4\n5\n6\n7\n8\nbottom\n');
      await project.sync();
      const first = await reviewing(
        `const t = await read_file('shared.txt');\nawait write_file('shared.txt', t.replace('top', 'TOP'));\nawait submit_result('top', []);\n`,
      );
      const second = await reviewing(
        `const t = await read_file('shared.txt');\nawait write_file('shared.txt', t.replace('bottom', 'BOTTOM'));\nawait submit_result('bottom', []);\n`,
      );
      const outs = await Promise.all([acceptInChild(first), acceptInChild(second)]);
      expect(outs.map((o) => /done \d+ (\w+)/.exec(o)?.[1])).toEqual(['true', 'true']);
      expect(temp.read('shared.txt')).toBe('TOP\n1\n2\n3\n4\n5\n6\n7\n8\nBOTTOM\n');
      expect((await project.agent(first)).state).toBe('accepted');
      expect((await project.agent(second)).state).toBe('accepted');
    }
  });
});

describe('a damaged proposal', () => {
  it('says which, lets reject discard it, and a restore that cannot work changes nothing', async () => {
    const id = await reviewing(EDIT_BOTH);
    writeFileSync(project.layout.overlayPath(id), Buffer.alloc(40_000, 0x5a));
    const error = await project.diff(id).catch((e: unknown) => e);
    expect(isCairnError(error, 'CAIRN_CORRUPT')).toBe(true);
    expect((error as Error).message).toBe(`proposal ${id} is damaged (not a SQLite database)`);
    expect((error as { hint?: string }).hint).toBe(`\`cairn reject ${id}\` discards it`);
    expect(isCairnError(await project.accept(id).catch((e: unknown) => e), 'CAIRN_CORRUPT')).toBe(true);
    expect(temp.read('src/a.txt')).toBe('a\n');
    const rejected = await project.reject(id);
    expect(rejected.state).toBe('rejected');
    const failed = await project.restore(id).catch((e: unknown) => e);
    expect(isCairnError(failed, 'CAIRN_CORRUPT')).toBe(true);
    expect((failed as Error).message).toMatch(/damaged .*it stays rejected/);
    expect((await project.agent(id)).state).toBe('rejected');
    expect(lstatSync(project.layout.overlayPath(id), { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(join(temp.root, 'src/b.txt'), 'utf8')).toBe('one\n');
  });
});
