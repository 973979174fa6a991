import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentFS, readDiskState, sameState, stateOf } from '@cairn/agentfs';
import { describe, expect, it } from 'vitest';
import { openProject } from '../project/open-project.js';
import { makeTempProject } from '../testing/temp-project.js';

const CHILD = fileURLToPath(new URL('../../test/fixtures/accept-child.mjs', import.meta.url));
const FILES = 50;
const TRIALS = 100;
const HUMAN_EDITED = [3, 11, 17, 29, 42];

/** Runs the accept in a child; kills it `killAfterMs` after it reports ready (never, if undefined). */
function runChild(root: string, home: string, agentId: string, killAfterMs?: number): Promise<{ finished: boolean; acceptMs?: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', CHILD, root, home, agentId], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (killAfterMs !== undefined && out.startsWith('ready\n') && !out.includes('armed')) {
        out += 'armed';
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const done = /done (\d+)/.exec(out);
      if (signal === null && code !== 0) reject(new Error(`accept child failed (${code}): ${err}`));
      else resolve(done === null ? { finished: false } : { finished: true, acceptMs: Number(done[1]) });
    });
  });
}

describe('accept survives SIGKILL at any point', () => {
  it(`keeps the working tree and stable.db in agreement, and every human edit, over ${TRIALS} killed accepts of ${FILES} files`, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < FILES; i++)
      files[`src/file${i}.txt`] = Array.from({ length: 20 }, (_, line) => `line ${line} of file ${i}`).join('\n') + '\n';
    const template = makeTempProject(files);
    const project = template.open();
    await project.sync();
    const agent = await project.spawn('edit every file', {
      code: `for (let i = 0; i < ${FILES}; i++) { const p = 'src/file' + i + '.txt'; const t = await read_file(p); await write_file(p, t.replace('line 15 of', 'LINE 15 (agent) of')); }`,
    });
    expect((await project.wait(agent.id)).state).toBe('reviewing');
    await project.close();
    for (const i of HUMAN_EDITED) template.write(`src/file${i}.txt`, files[`src/file${i}.txt`]!.replace('line 2 of', 'line 2 (human) of'));

    const scratch = mkdtempSync(join(tmpdir(), 'cairn-crash-'));
    const trial = (n: number) => {
      const dir = join(scratch, String(n));
      cpSync(join(template.root, '..'), dir, { recursive: true });
      return { root: join(dir, 'project'), home: join(dir, 'home') };
    };
    try {
      const calibration = trial(-1);
      const full = await runChild(calibration.root, calibration.home, agent.id);
      expect(full.finished).toBe(true);
      const window = Math.max(5, (full.acceptMs ?? 50) * 1.3);
      let interrupted = 0;
      for (let n = 0; n < TRIALS; n++) {
        const { root, home } = trial(n);
        // A path the accept never reached may still hold the human's edit that only a sync would import.
        const outcome = await runChild(root, home, agent.id, Math.random() * window);
        if (!outcome.finished) interrupted++;
        const reopened = openProject(root, { cairnHome: home });
        const state = (await reopened.agent(agent.id)).state;
        await reopened.close();
        expect(['reviewing', 'accepted']).toContain(state);
        const stable = AgentFS.open(join(root, '.agentfs', 'stable.db'), { readonly: true });
        try {
          for (let i = 0; i < FILES; i++) {
            const path = `src/file${i}.txt`;
            const disk = readDiskState(root, path);
            const mirror = stateOf(stable.fs, '/' + path);
            const untouched = HUMAN_EDITED.includes(i) && mirror.kind === 'file' && mirror.content.toString() === files[path];
            expect(sameState(disk, mirror) || untouched, `trial ${n}: ${path} differs between disk and stable.db`).toBe(true);
            const text = readFileSync(join(root, path), 'utf8');
            if (HUMAN_EDITED.includes(i)) expect(text, `trial ${n}: the human edit of ${path} was lost`).toContain('line 2 (human) of');
            if (state === 'accepted')
              expect(text, `trial ${n}: ${path} was accepted without the agent's edit`).toContain('LINE 15 (agent) of');
          }
          expect(
            readdirSync(join(root, 'src')).filter((name) => name.endsWith('.tmp')),
            `trial ${n}: temp files were left behind`,
          ).toEqual([]);
        } finally {
          stable.close();
          rmSync(join(root, '..'), { recursive: true, force: true });
        }
      }
      expect(interrupted, 'no kill landed before the accept finished').toBeGreaterThan(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      template.cleanup();
    }
  }, 600_000);
});
