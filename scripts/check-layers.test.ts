import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module without declarations
import { findViolations } from './check-layers.mjs';

const made: string[] = [];
afterEach(() => made.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function fakePackage(root: string, name: string, files: Record<string, string>) {
  const dir = join(root, name.replace('@cairn/', ''));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return { dir, json: { name } };
}

describe('layer check', () => {
  it('passes on this workspace', () => {
    expect(findViolations()).toEqual([]);
  });

  it('catches upward, sideways, src/-reaching, escaping and L0 node imports, and unknown packages', () => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-layers-'));
    made.push(root);
    const problems: string[] = findViolations([
      fakePackage(root, '@cairn/air', { 'src/a.ts': `import { readFileSync } from 'node:fs';\nimport { x } from '@cairn/agentfs';\n` }),
      fakePackage(root, '@cairn/agentfs', {
        'src/b.ts': `import { run } from '@cairn/sandbox';\nexport { t } from '@cairn/triage/src/parse.js';\n`,
      }),
      fakePackage(root, '@cairn/sandbox', { 'src/c.ts': `const m = await import('../../agentfs/src/b.js');\n` }),
      fakePackage(root, '@cairn/triage', {
        'src/ok.ts': `export const ok = 1;\n`,
        'src/node/load.ts': `import { readFileSync } from 'node:fs';\n`,
        'src/ok.test.ts': `import { readFileSync } from 'node:fs';\n`,
      }),
      fakePackage(root, '@cairn/mystery', { 'src/m.ts': '' }),
    ]);
    const text = problems.join('\n');
    expect(text).toMatch(/L0 package @cairn\/air imports node:fs/);
    expect(text).toMatch(/L0 @cairn\/air imports L1 @cairn\/agentfs \(points up\)/);
    expect(text).toMatch(/@cairn\/agentfs imports @cairn\/sandbox of the same layer L1 \(sideways\)/);
    expect(text).toMatch(/imports @cairn\/triage\/src\/parse\.js, inside another package's src\//);
    expect(text).toMatch(/relative import \.\.\/\.\.\/agentfs\/src\/b\.js leaves package @cairn\/sandbox/);
    expect(text).toMatch(/package @cairn\/mystery has no layer/);
    expect(problems.length).toBe(6);
  });
});
