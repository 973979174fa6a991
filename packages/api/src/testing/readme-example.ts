import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs the first `js` example of a package's README as written, in a fresh folder (its current folder), with
 * the package's name pointing at its built entry; `report` (an expression over the example's variables) is
 * printed as JSON and returned.
 */
export function runReadmeExample(packageRoot: URL, name: string, report: string): unknown {
  const readme = readFileSync(fileURLToPath(new URL('README.md', packageRoot)), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error(`${name}'s README has no js example`);
  const entry = new URL('dist/index.js', packageRoot).href;
  const script = `${block.replaceAll(`from '${name}'`, `from ${JSON.stringify(entry)}`)}\nprocess.stdout.write(JSON.stringify(${report}));\n`;
  const work = mkdtempSync(join(tmpdir(), 'cairn-readme-'));
  try {
    writeFileSync(join(work, 'example.mjs'), script);
    return JSON.parse(
      execFileSync(process.execPath, ['--no-node-snapshot', 'example.mjs'], { cwd: work, encoding: 'utf8', timeout: 120_000 }),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
