import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempFolders } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';
import { loadCheckSettings } from './check-settings.js';
import { suggestChecks } from './suggest-checks.js';
import { addChecksToConfig } from './write-checks.js';

const folders = tempFolders('cairn-suggest-');

function project(files: Record<string, string>): string {
  const dir = folders.make();
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  return dir;
}

describe('suggested checks', () => {
  it('come from what the project declares, run by its package manager', () => {
    const root = project({
      'package.json': JSON.stringify({ scripts: { test: 'vitest run', lint: 'biome check .', build: 'tsc' } }),
      'pnpm-lock.yaml': '',
      'pytest.ini': '[pytest]\n',
      'go.mod': 'module x\n',
      'Cargo.toml': '[package]\n',
      Makefile: 'all:\n\ttrue\ntest: all\n\ttrue\n',
    });
    expect(suggestChecks(root).map((c) => [c.name, c.command.join(' '), c.from])).toEqual([
      ['test', 'pnpm run test', 'package.json scripts.test'],
      ['lint', 'pnpm run lint', 'package.json scripts.lint'],
      ['pytest', 'python3 -m pytest -q', 'pytest configuration'],
      ['cargo-test', 'cargo test --offline', 'Cargo.toml'],
      ['go-test', 'go test ./...', 'go.mod'],
      ['make-test', 'make test', 'Makefile target test'],
    ]);
    expect(
      suggestChecks(project({ 'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }) })),
    ).toEqual([]);
  });

  it('are added to the config keeping what is there, and a malformed config is never overwritten', () => {
    const root = project({ 'config.json': JSON.stringify({ model: { default: 'm' }, checks: { test: { command: ['make', 'check'] } } }) });
    const config = join(root, 'config.json');
    const suggested = suggestChecks(project({ 'package.json': JSON.stringify({ scripts: { test: 'x', lint: 'y' } }) }));
    expect(addChecksToConfig(config, suggested)).toEqual(['lint']);
    expect(JSON.parse(readFileSync(config, 'utf8')).model).toEqual({ default: 'm' });
    expect(loadCheckSettings(config).map((c) => [c.name, c.command.join(' ')])).toEqual([
      ['test', 'make check'],
      ['lint', 'npm run lint'],
    ]);
    writeFileSync(config, '{"checks": {"bad": {"command": "x"}}}');
    expect(() => addChecksToConfig(config, suggested)).toThrow(/"checks.bad".command must be a list/);
    expect(readFileSync(config, 'utf8')).toBe('{"checks": {"bad": {"command": "x"}}}');
  });
});
