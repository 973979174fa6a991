import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** A resolve hook that prints every module URL the process loads, one a line, on stderr. */
const HOOKS = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; export async function resolve(specifier, context, next) { const found = await next(specifier, context); writeSync(2, found.url + '\\n'); return found; }",
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`)}`;

/** The URLs of the modules a fresh Node process loads to import `entry`. */
function modulesLoadedBy(entry: string): string[] {
  const script = `await import(${JSON.stringify(entry)});`;
  const run = spawnSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`the import failed: ${run.stderr}`);
  return run.stderr.split('\n').filter((line) => line.includes('://'));
}

/** What a process that only talks to a daemon never needs: the stores, the sandbox, the native modules. */
const HEAVY = [
  '/packages/agentfs/dist/index.js',
  '/packages/workspace/dist/index.js',
  '/packages/sandbox/',
  'better-sqlite3',
  'isolated-vm',
];

describe('the light client entry', () => {
  it('loads no store, no sandbox and no native module: a command a daemon answers stays quick', () => {
    const loaded = modulesLoadedBy(fileURLToPath(new URL('../dist/client.js', import.meta.url)));
    expect(loaded.length).toBeGreaterThan(5);
    expect(loaded.filter((url) => HEAVY.some((heavy) => url.includes(heavy)))).toEqual([]);
  });

  it('while the full entry loads them (so the check above can see them)', () => {
    const loaded = modulesLoadedBy(fileURLToPath(new URL('../dist/index.js', import.meta.url)));
    expect(loaded.some((url) => url.includes('/packages/agentfs/dist/index.js'))).toBe(true);
  });
});
