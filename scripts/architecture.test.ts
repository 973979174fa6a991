import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module without declarations
import { FOLDERS, LAYERS } from './check-layers.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const layers = LAYERS as Record<string, number>;
const TOP = Math.max(...Object.values(layers));

/** Every workspace package under packages/ and apps/, by name, with its folder. */
function workspacePackages(): Map<string, string> {
  const found = new Map<string, string>();
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, group))) {
      const manifest = join(ROOT, group, name, 'package.json');
      if (existsSync(manifest)) found.set((JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name, `${group}/${name}`);
    }
  }
  return found;
}

/** The layer drawing of ARCHITECTURE.md: each folder it names, with the layer of its line. */
function drawnLayers(): Map<string, number> {
  const text = readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const section = text.slice(text.indexOf('## Layers and packages'));
  const drawing = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const drawn = new Map<string, number>();
  for (const line of drawing.split('\n')) {
    const layer = /^L(\d+)\s/.exec(line);
    if (layer === null) continue;
    for (const folder of line.matchAll(/\b((?:packages|apps)\/[a-z-]+)/g)) drawn.set(folder[1]!, Number(layer[1]));
  }
  return drawn;
}

describe('docs/ARCHITECTURE.md and the README agree with the packages and the layer check', () => {
  const packages = workspacePackages();

  it('the drawing names every package once, on the layer scripts/check-layers.mjs gives it', () => {
    const drawn = drawnLayers();
    const expected = new Map([...packages].map(([name, folder]) => [folder, layers[name]]));
    expect(Object.fromEntries(drawn)).toEqual(Object.fromEntries(expected));
  });

  it('the layers go up from L0 with no gap, and only the top one (benchmarks, end-to-end tests) is left out of the drawing', () => {
    const used = [...new Set(Object.values(layers))].sort((a, b) => a - b);
    expect(used).toEqual(used.map((_, index) => index));
    const undrawn = Object.keys(layers).filter((name) => !packages.has(name));
    expect(undrawn.every((name) => layers[name] === TOP)).toBe(true);
  });

  it("the README's package table has a row for each package with its layer", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const [name, folder] of packages) {
      const row = readme.split('\n').find((line) => line.startsWith(`| [\`${name}\`](${folder})`));
      expect(row, `a row for ${name}`).toBeDefined();
      expect(row).toMatch(new RegExp(`\\| L${layers[name]}\\b`));
    }
  });

  it('the root tsconfig.json references every package, so `tsc -b` builds the whole repository', () => {
    const root = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { references: { path: string }[] };
    const referenced = root.references.map((reference) => reference.path.replace(/\/tsconfig\.build\.json$/, ''));
    expect(referenced.sort()).toEqual([...packages.values(), 'bench'].sort());
  });

  it("the orchestrator README's folder table lists its rooms in the order the layer check gives them", () => {
    const readme = readFileSync(join(ROOT, 'packages', 'orchestrator', 'README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((match) => match[1]);
    const rooms = (FOLDERS as Record<string, string[]>)['@cairn/orchestrator']!.filter(
      (room) => room !== 'testing' && room !== 'test-support',
    );
    expect(listed).toEqual(rooms);
    const onDisk = readdirSync(join(ROOT, 'packages', 'orchestrator', 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'testing' && entry.name !== 'test-support')
      .map((entry) => entry.name);
    expect(onDisk.sort()).toEqual([...rooms].sort());
  });
});
