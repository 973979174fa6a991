import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe("the README's table of rooms", () => {
  it('names every source file and folder of src/, and nothing that is not there', () => {
    const entries = readdirSync(new URL('.', import.meta.url), { withFileTypes: true });
    const sources = entries
      .filter((entry) => (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) || entry.isDirectory())
      .filter((entry) => entry.name !== 'test-support' && entry.name !== 'commands')
      .map((entry) => (entry.isDirectory() ? `src/${entry.name}/` : `src/${entry.name}`));
    const named = [...README.matchAll(/^\| `(src\/[^`]+)` \|/gm)].map((match) => match[1]!).filter((name) => !name.includes('<'));
    expect(named.sort()).toEqual(sources.sort());
  });
});
