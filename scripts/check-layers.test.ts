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

  it('catches, inside a package, a folder importing one above it, an import cycle, and a folder with no place', () => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-layers-'));
    made.push(root);
    const problems: string[] = findViolations(
      [
        fakePackage(root, '@cairn/orchestrator', {
          'src/api/types.ts': `import { x } from '../project/project.js';\n`,
          'src/project/project.ts': `export const x = 1;\nimport { y } from './wiring.js';\n`,
          'src/project/wiring.ts': `export { x } from './project.js';\nexport const y = 2;\n`,
          'src/daemon/server.ts': `import { x } from '../project/project.js';\n`,
          'src/stray/thing.ts': `export const z = 3;\n`,
          'src/api/types.test.ts': `import { x } from '../daemon/server.js';\n`,
          'src/index.ts': `export { x } from './daemon/server.js';\n`,
        }),
      ],
      { '@cairn/orchestrator': ['api', 'project', 'daemon'] },
    );
    const text = problems.join('\n');
    expect(text).toMatch(/src\/api\/types\.ts: api\/ imports project\/project\.ts, a folder above it \(points up\)/);
    expect(text).toMatch(/import cycle project\/project\.ts -> project\/wiring\.ts -> project\/project\.ts/);
    expect(text).toMatch(/folder stray\/ of @cairn\/orchestrator has no place in FOLDERS/);
    expect(problems.length).toBe(3);
  });

  it('catches an import cycle in a package whose folders have no order', () => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-layers-'));
    made.push(root);
    const problems: string[] = findViolations([
      fakePackage(root, '@cairn/agentfs', {
        'src/import-tree.ts': `import type { W } from './writer.js';\nexport interface S { n: number }\n`,
        'src/writer.ts': `import type { S } from './import-tree.js';\nexport interface W { s: S }\n`,
        'src/plain.ts': `import type { S } from './import-tree.js';\n`,
      }),
    ]);
    expect(problems).toEqual([expect.stringMatching(/import cycle import-tree\.ts -> writer\.ts -> import-tree\.ts$/)]);
  });
});
