import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tryHoldExclusiveLock, withExclusiveLock } from './exclusive-lock.js';
import { makeTempDir } from './test-support/temp-dir.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** A child process that takes the lock, writes `child-start`, holds the lock a second, writes `child-end`, and exits. */
const HOLDER = `
import { appendFileSync } from 'node:fs';
import { withExclusiveLock } from '@cairn/agentfs';
const [lock, log] = process.argv.slice(1);
withExclusiveLock(lock, () => {
  appendFileSync(log, 'child-start\\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  appendFileSync(log, 'child-end\\n');
});
`;

describe('withExclusiveLock', () => {
  it('makes a second process wait until the first lets go, then runs', async () => {
    const dir = makeTempDir();
    const lock = join(dir, 'operations.lock');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const child = spawn(process.execPath, ['--input-type=module', '-e', HOLDER, lock, log], { cwd: PACKAGE_DIR, stdio: 'inherit' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const deadline = Date.now() + 20_000;
    while (!readFileSync(log, 'utf8').includes('child-start') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    withExclusiveLock(lock, () => appendFileSync(log, 'parent\n'));
    await exited;
    expect(readFileSync(log, 'utf8')).toBe('child-start\nchild-end\nparent\n');
  });

  it('is re-entrant in one process, and a lock file that is not a database is replaced', () => {
    const dir = makeTempDir();
    const lock = join(dir, 'operations.lock');
    writeFileSync(lock, 'garbage that is no database at all, long enough to have a header'.repeat(4));
    const order: string[] = [];
    withExclusiveLock(lock, () => {
      order.push('outer');
      withExclusiveLock(lock, () => order.push('inner'));
    });
    expect(order).toEqual(['outer', 'inner']);
  });
});

describe('tryHoldExclusiveLock', () => {
  it('gives the lock to one holder at a time, in this process too, until it is released', () => {
    const lock = join(makeTempDir(), 'daemon.lock');
    const first = tryHoldExclusiveLock(lock);
    expect(first).toBeDefined();
    expect(tryHoldExclusiveLock(lock)).toBeUndefined();
    first!.release();
    first!.release();
    const second = tryHoldExclusiveLock(lock);
    expect(second).toBeDefined();
    second!.release();
  });

  it('is let go by the operating system when its holder is killed', async () => {
    const dir = makeTempDir();
    const lock = join(dir, 'daemon.lock');
    const log = join(dir, 'log');
    writeFileSync(log, '');
    const holder = `
      import { appendFileSync } from 'node:fs';
      import { tryHoldExclusiveLock } from '@cairn/agentfs';
      const [lock, log] = process.argv.slice(1);
      appendFileSync(log, tryHoldExclusiveLock(lock) === undefined ? 'refused\\n' : 'held\\n');
      setInterval(() => globalThis.gc?.(), 50);
    `;
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', holder, lock, log], {
      cwd: PACKAGE_DIR,
      stdio: 'inherit',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      const deadline = Date.now() + 20_000;
      while (!readFileSync(log, 'utf8').includes('held') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(readFileSync(log, 'utf8')).toBe('held\n');
      // the holder drops every reference to its lock: the lock holds all the same, through garbage collections
      await new Promise((r) => setTimeout(r, 300));
      expect(tryHoldExclusiveLock(lock)).toBeUndefined();
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const after = tryHoldExclusiveLock(lock);
    expect(after).toBeDefined();
    after!.release();
  });
});
