import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '../../dist');
const SANDBOX = pathToFileURL(join(DIST, 'index.js')).href;
const CHILD_MAIN = join(DIST, 'child/child-main.js');
/** How long a dead parent's children may take to go before the test calls it a leak: ample, to catch a leak, not to time one. */
const GONE_WITHIN_MS = 20_000;

const RUNAWAYS = {
  loop: 'await started(); while (true) {}',
  regex: "await started(); /^(a+)+$/.test('a'.repeat(40) + 'b'); await started();",
  recursion: 'await started(); const f = () => { try { f(); } catch { f(); } }; f();',
};

/** True while `pid` runs; a zombie counts as gone. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function goneWithin(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return pids.filter(alive);
}

let dir: string;
const leftovers: number[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-orphans-'));
});

afterEach(() => {
  for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `source` as a parent process; resolves with the first message it sends. */
async function startParent<T>(source: string): Promise<{ pid: number; first: T }> {
  writeFileSync(join(dir, 'parent.mjs'), source);
  const parent = fork(join(dir, 'parent.mjs'), [], { stdio: 'ignore' });
  leftovers.push(parent.pid!);
  const first = await new Promise<T>((resolve, reject) => {
    parent.once('message', (message) => resolve(message as T));
    parent.once('exit', (code) => reject(new Error(`the parent exited (${code}) before reporting`)));
  });
  return { pid: parent.pid!, first };
}

describe.runIf(process.platform === 'linux')('sandbox children whose parent dies', () => {
  it('are gone soon after, whatever their program does: a loop, a stuck regular expression, a deep recursion', async () => {
    const { pid, first: children } = await startParent<number[]>(`
      import { readdirSync, readFileSync } from 'node:fs';
      import { createSandbox } from ${JSON.stringify(SANDBOX)};
      const sandbox = createSandbox({ poolSize: 3 });
      const limits = { wallMs: 600000, cpuMs: 600000 };
      let started = 0;
      const children = () => readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).filter((n) => {
        try { const s = readFileSync('/proc/' + n + '/stat', 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) === process.pid; }
        catch { return false; }
      }).map(Number);
      const functions = { started: async () => { if (++started === 3) process.send(children()); return null; } };
      for (const code of ${JSON.stringify(Object.values(RUNAWAYS))}) void sandbox.run({ code, functions, limits });
      setInterval(() => {}, 1000);
    `);
    leftovers.push(...children);
    expect(children).toHaveLength(3);
    expect(children.every(alive)).toBe(true);
    process.kill(pid, 'SIGKILL');
    expect(await goneWithin(children, GONE_WITHIN_MS)).toEqual([]);
  });

  it('dies when the parent lets go of it (the channel closed) while its program runs', async () => {
    const { first: child } = await startParent<number>(`
      import { fork } from 'node:child_process';
      const child = fork(${JSON.stringify(CHILD_MAIN)}, [], { execArgv: ['--no-node-snapshot'], stdio: 'ignore' });
      child.once('message', () => {
        child.send({ type: 'run', runId: 1, engine: 'js', code: 'while (true) {}', functions: [], input: 'null', seed: 1, clockMs: 0,
          limits: { wallMs: 600000, cpuMs: 600000, memoryMb: 64, calls: 10, outputBytes: 1000, messageBytes: 1000 } });
        setTimeout(() => { process.send(child.pid); child.disconnect(); }, 200);
      });
      setInterval(() => {}, 1000);
    `);
    leftovers.push(child);
    expect(await goneWithin([child], GONE_WITHIN_MS)).toEqual([]);
  });

  it('dies at start when its parent died before its watchdog could start', async () => {
    const pidFile = join(dir, 'child.pid');
    writeFileSync(
      join(dir, 'parent.mjs'),
      `import { fork } from 'node:child_process';\nimport { writeFileSync } from 'node:fs';\n` +
        `const child = fork(${JSON.stringify(CHILD_MAIN)}, [], { execArgv: ['--no-node-snapshot'], stdio: 'ignore',` +
        ` env: { ...process.env, CAIRN_SANDBOX_PARENT: String(process.pid) } });\n` +
        `writeFileSync(${JSON.stringify(pidFile)}, String(child.pid));\nprocess.kill(process.pid, 'SIGKILL');\n`,
    );
    const parent = fork(join(dir, 'parent.mjs'), [], { stdio: 'ignore' });
    await new Promise((resolve) => parent.once('exit', resolve));
    const child = Number(readFileSync(pidFile, 'utf8'));
    leftovers.push(child);
    expect(await goneWithin([child], GONE_WITHIN_MS)).toEqual([]);
  });

  it('keeps its own CPU limit with a parent that never answers or aborts', async () => {
    const { first: done } = await startParent<{ status: string; error: { message: string } }>(`
      import { fork } from 'node:child_process';
      const child = fork(${JSON.stringify(CHILD_MAIN)}, [], { execArgv: ['--no-node-snapshot'], stdio: 'ignore' });
      child.on('message', (message) => {
        if (message.type === 'ready')
          child.send({ type: 'run', runId: 1, engine: 'js', code: 'while (true) {}', functions: [], input: 'null', seed: 1, clockMs: 0,
            limits: { wallMs: 600000, cpuMs: 300, memoryMb: 64, calls: 10, outputBytes: 1000, messageBytes: 1000 } });
        if (message.type === 'done') { process.send(message); child.kill('SIGKILL'); }
      });
      setInterval(() => {}, 1000);
    `);
    expect(done.status).toBe('timeout');
    expect(done.error.message).toContain('CPU');
  });
});
