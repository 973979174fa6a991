import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ENTRY = new URL('../dist/index.js', import.meta.url).href;
const work = mkdtempSync(join(tmpdir(), 'cairn-agentfs-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the README example runs as written', () => {
  it('imports the tree, changes it in an overlay, accepts and writes it back', () => {
    const block = /```js\n([\s\S]*?)```/.exec(readFileSync(new URL('../README.md', import.meta.url), 'utf8'))?.[1];
    expect(block, 'the README has a js example').toBeDefined();
    const report = '{ added: imported.added, diff, applied: result.applied.map((a) => a.path).sort(), greet }';
    writeFileSync(
      join(work, 'example.mjs'),
      `${block!.replace("from '@cairn/agentfs'", `from ${JSON.stringify(ENTRY)}`)}\nprocess.stdout.write(JSON.stringify(${report}));\n`,
    );
    const out = JSON.parse(execFileSync(process.execPath, ['example.mjs'], { cwd: work, encoding: 'utf8' })) as {
      added: number;
      diff: string;
      applied: string[];
      greet: string;
    };
    expect(out.added).toBeGreaterThanOrEqual(2);
    expect(out.diff).toContain('+export const hi = "hello";');
    expect(out.applied).toEqual(['src/greet.ts', 'src/old.ts']);
    expect(out.greet).toBe('export const hi = "hello";\n');
    expect(() => readFileSync(join(work, 'src/old.ts'))).toThrow();
  });
});
