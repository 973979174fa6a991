import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECK_DEFAULTS, type CheckSpec } from './check-settings.js';

/** A check Cairn proposes, with where it found it. */
export interface SuggestedCheck extends CheckSpec {
  from: string;
}

const SCRIPT_NAMES = ['test', 'lint', 'typecheck'];
/** npm's placeholder `test` script, which only fails. */
const PLACEHOLDER = /no test specified/;

/**
 * Checks a project already declares, in the order a person would run them: package.json scripts `test`,
 * `lint`, `typecheck` (run with the package manager its lock file names), pytest, `cargo test`,
 * `go test ./...`, `make test`. Nothing is written here; see `addChecksToConfig`.
 */
export function suggestChecks(root: string): SuggestedCheck[] {
  const out: SuggestedCheck[] = [];
  const add = (name: string, command: string[], from: string) => {
    if (!out.some((check) => check.name === name)) out.push({ name, command, ...CHECK_DEFAULTS, from });
  };
  const pkg = readJson(join(root, 'package.json'));
  const scripts = isObject(pkg?.scripts) ? pkg.scripts : {};
  const manager = packageManager(root);
  for (const name of SCRIPT_NAMES) {
    const script = scripts[name];
    if (typeof script === 'string' && script.trim() !== '' && !PLACEHOLDER.test(script))
      add(name, [manager, 'run', name], `package.json scripts.${name}`);
  }
  if (usesPytest(root)) add('pytest', ['python3', '-m', 'pytest', '-q'], 'pytest configuration');
  if (existsSync(join(root, 'Cargo.toml'))) add('cargo-test', ['cargo', 'test', '--offline'], 'Cargo.toml');
  if (existsSync(join(root, 'go.mod'))) add('go-test', ['go', 'test', './...'], 'go.mod');
  if (hasMakeTarget(root, 'test')) add('make-test', ['make', 'test'], 'Makefile target test');
  return out;
}

function packageManager(root: string): string {
  if (existsSync(join(root, 'pnpm-lock.yaml'))) return 'pnpm';
  if (existsSync(join(root, 'yarn.lock'))) return 'yarn';
  if (existsSync(join(root, 'bun.lockb')) || existsSync(join(root, 'bun.lock'))) return 'bun';
  return 'npm';
}

function usesPytest(root: string): boolean {
  if (existsSync(join(root, 'pytest.ini')) || existsSync(join(root, 'conftest.py'))) return true;
  const pyproject = readText(join(root, 'pyproject.toml'));
  if (pyproject?.includes('[tool.pytest') === true) return true;
  for (const file of ['tox.ini', 'setup.cfg'])
    if (readText(join(root, file))?.includes('[pytest]') || readText(join(root, file))?.includes('[tool:pytest]')) return true;
  return false;
}

function hasMakeTarget(root: string, target: string): boolean {
  const makefile = readText(join(root, 'Makefile')) ?? readText(join(root, 'makefile'));
  return makefile !== undefined && new RegExp(`^${target}\\s*:`, 'm').test(makefile);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
