import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { Overlay } from './overlay.js';
import { makeTempDir } from './test-support/temp-dir.js';

const CHILD = fileURLToPath(new URL('../test/fixtures/accept-child.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const FILES = 300;

function prepare(): string {
  const dir = makeTempDir();
  const base = AgentFS.open(join(dir, 'stable.db'));
  const overlay = Overlay.open(join(dir, 'agent.db'), base);
  base.transaction(() => {
    for (let i = 0; i < FILES; i++) base.fs.writeFile(`/src/f${i}.txt`, `before ${i}\n`.repeat(50));
  });
  for (let i = 0; i < FILES; i++) overlay.fs.writeFile(`/src/f${i}.txt`, `after ${i}\n`.repeat(50));
  overlay.close();
  base.close();
  return dir;
}

/** 'before' or 'after' when every file agrees, 'torn' otherwise. */
function baseState(dir: string): string {
  const base = AgentFS.open(join(dir, 'stable.db'), { readonly: true });
  try {
    const states = new Set(base.fs.readdir('/src').map((name) => base.fs.readFile(`/src/${name}`, 'utf8').split(' ')[0]));
    expect(base.fs.readdir('/src').length).toBe(FILES);
    return states.size === 1 ? [...states][0]! : 'torn';
  } finally {
    base.close();
  }
}

/** How far the child got before it died: its last report line. */
type Reached = { phase: 'nothing' | 'begin' | 'applying' | 'committed'; applied: number };

async function runChild(dir: string, stopAt: number, killWhen: 'marker' | number): Promise<Reached> {
  const child = spawn(process.execPath, [CHILD, dir, String(stopAt)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<void>((resolve) => child.stdout.on('close', () => resolve()));
  if (killWhen === 'marker') {
    while (!existsSync(join(dir, 'marker'))) {
      if (child.exitCode !== null) throw new Error(`child exited early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGKILL');
  } else {
    setTimeout(() => child.kill('SIGKILL'), killWhen);
  }
  await exited;
  const lines = stdout.trim().split('\n').filter(Boolean);
  const last = lines.at(-1);
  const applied = lines.filter((l) => l.startsWith('applied ')).length;
  if (last === undefined) return { phase: 'nothing', applied };
  return { phase: last === 'committed' ? 'committed' : last === 'begin' ? 'begin' : 'applying', applied };
}

describe('accept is atomic under SIGKILL', () => {
  it('needs the built package for its child process', () => {
    expect(existsSync(BUILT), 'run `pnpm build` first: the crash test forks plain node on dist/').toBe(true);
  });

  it('a process killed in the middle of an accept, at any file, leaves the base wholly before', async () => {
    for (const stopAt of [1, 2, FILES / 2, FILES - 1, FILES]) {
      const dir = prepare();
      const reached = await runChild(dir, stopAt, 'marker');
      expect(reached).toEqual({ phase: 'applying', applied: stopAt });
      expect(existsSync(join(dir, 'done'))).toBe(false);
      expect(baseState(dir)).toBe('before');
    }
  });

  it('an accept that completes leaves the base wholly after', async () => {
    const dir = prepare();
    await runChild(dir, -1, 60_000);
    expect(existsSync(join(dir, 'done'))).toBe(true);
    expect(baseState(dir)).toBe('after');
  });

  it('kills at random moments never tear the base, and each lands where the base says', async () => {
    for (const delay of [5, 20, 40, 60, 80, 120, 200]) {
      const dir = prepare();
      const reached = await runChild(dir, -1, delay);
      const state = baseState(dir);
      // The child reports every step synchronously, so `reached` is exactly how far it got before the kill.
      if (reached.phase === 'committed') expect(state).toBe('after');
      else if (reached.phase === 'applying' && reached.applied < FILES) expect(state).toBe('before');
      else if (reached.phase === 'applying')
        expect(['before', 'after']).toContain(state); // between the last file and the commit
      else expect(state).toBe('before');
    }
  });
});
