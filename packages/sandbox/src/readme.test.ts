import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const ENTRY = new URL('../dist/index.js', import.meta.url).href;
const work = mkdtempSync(join(tmpdir(), 'cairn-sandbox-readme-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the README example runs as written', () => {
  it('changes the file, returns ok, and the check refuses the import', () => {
    const block = /```js\n([\s\S]*?)```/.exec(readFileSync(README, 'utf8'))?.[1];
    expect(block, 'the README has a js example').toBeDefined();
    const script =
      block!.replace("from '@cairn/sandbox'", `from ${JSON.stringify(ENTRY)}`) +
      '\nprocess.stdout.write(JSON.stringify({ result, checked }));\n';
    mkdirSync(join(work, 'src'), { recursive: true });
    writeFileSync(join(work, 'src/a.js'), 'var x = 1;\n');
    writeFileSync(join(work, 'example.mjs'), script);
    const out = JSON.parse(
      execFileSync(process.execPath, ['--no-node-snapshot', 'example.mjs'], { cwd: work, encoding: 'utf8', timeout: 120_000 }),
    ) as {
      result: { status: string; value: unknown; calls: { name: string; ok: boolean }[] };
      checked: { ok: boolean; problems: { line: number }[] };
    };
    expect(out.result.status).toBe('ok');
    expect(out.result.value).toEqual({ changed: true });
    expect(out.result.calls.map((c) => [c.name, c.ok])).toEqual([
      ['read_file', true],
      ['write_file', true],
    ]);
    expect(readFileSync(join(work, 'src/a.js'), 'utf8')).toBe('let x = 1;\n');
    expect(out.checked.ok).toBe(false);
    expect(out.checked.problems[0]!.line).toBe(1);
  });
});
