import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The house's bounds: a file holds one concept, a class one service, and no package most of the code. */
const MAX_FILE_LINES = 400;
const MAX_CLASS_LINES = 250;
const MAX_PACKAGE_SHARE = 0.25;

/** Every package's folder under packages/ and apps/. */
function packageFolders(): string[] {
  return ['packages', 'apps'].flatMap((group) => readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name)));
}

/** The non-test TypeScript sources under a folder's `src/` (tests, type tests and test fixtures left out). */
function sources(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'dist' && name !== 'test-support' && name !== 'fixtures') walk(path);
      } else if (name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(name) && !name.endsWith('.d.ts')) found.push(path);
    }
  };
  walk(join(folder, 'src'));
  return found;
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Each class in a source with the lines it spans. */
function classSpans(path: string, text: string): { name: string; lines: number }[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const spans: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      spans.push({ name: node.name?.text ?? '(anonymous)', lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return spans;
}

describe('the house stays readable', () => {
  const byPackage = new Map(packageFolders().map((folder) => [relative(ROOT, folder), sources(folder)]));

  it(`no source file is over ${MAX_FILE_LINES} lines`, () => {
    const over = [...byPackage.values()]
      .flat()
      .map((path) => ({ file: relative(ROOT, path), lines: lineCount(readFileSync(path, 'utf8')) }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(over).toEqual([]);
  });

  it(`no class is over ${MAX_CLASS_LINES} lines`, () => {
    const over = [...byPackage.values()]
      .flat()
      .flatMap((path) => classSpans(path, readFileSync(path, 'utf8')).map((span) => ({ file: relative(ROOT, path), ...span })))
      .filter(({ lines }) => lines > MAX_CLASS_LINES);
    expect(over).toEqual([]);
  });

  it(`no package holds more than ${MAX_PACKAGE_SHARE * 100}% of the non-test source lines`, () => {
    const lines = new Map(
      [...byPackage].map(([folder, files]) => [folder, files.reduce((sum, path) => sum + lineCount(readFileSync(path, 'utf8')), 0)]),
    );
    const total = [...lines.values()].reduce((sum, count) => sum + count, 0);
    expect(total).toBeGreaterThan(0);
    const over = [...lines]
      .filter(([, count]) => count / total > MAX_PACKAGE_SHARE)
      .map(([folder, count]) => `${folder}: ${count} of ${total}`);
    expect(over).toEqual([]);
  });
});
