import { describe, expect, it } from 'vitest';
import { outlineFolders } from './folder-outline.js';
import { rankFiles } from './rank-files.js';
import { loadParser, outlineSymbols } from './symbol-outline.js';
import { readTaskTerms } from './task-terms.js';

describe('the parts of a repo map', () => {
  it('reads the paths, file names and words of a task', () => {
    const terms = readTaskTerms('Rename getUserName in `src/auth/user.ts` (and users.py), see ./docs/ for v1.2.3.');
    expect(terms.named).toEqual(['src/auth/user.ts', 'users.py', 'docs/']);
    expect(terms.identifiers).toContain('getUserName');
    expect(terms.words).toEqual(expect.arrayContaining(['getusername', 'user', 'name', 'auth']));
  });

  it('ranks named files, recent edits, then path and content matches, with a bounded search', () => {
    const files = ['src/auth/user.ts', 'src/auth/session.ts', 'src/billing/user-invoice.ts', 'lib/other.ts', 'README.md'];
    const texts: Record<string, string> = { 'lib/other.ts': 'export const x = getUserName();', 'src/auth/session.ts': 'nothing here' };
    const ranked = rankFiles(
      { files, dirs: ['src', 'src/auth', 'src/billing', 'lib'], cut: false },
      readTaskTerms('fix getUserName in user.ts and src/auth/'),
      {
        readText: (path) => texts[path],
        recent: ['README.md', 'gone.md'],
      },
    );
    expect(ranked.named).toEqual(['src/auth/user.ts']);
    expect(ranked.namedDirs).toEqual(['src/auth']);
    expect(ranked.recent).toEqual(['README.md']);
    expect(ranked.matched.map((m) => m.path)).toEqual(expect.arrayContaining(['lib/other.ts', 'src/billing/user-invoice.ts']));
    expect(ranked.matched.find((m) => m.path === 'lib/other.ts')?.why).toContain('content: getUserName');
  });

  it('finds a file the task names in another case when none is named exactly so', () => {
    const files = ['src/billing/invoiceTotals.ts', 'src/billing/Invoice.ts', 'src/billing/invoice.ts'];
    const rank = (task: string) =>
      rankFiles({ files, dirs: ['src', 'src/billing'], cut: false }, readTaskTerms(task), { readText: () => undefined });
    expect(rank('validate InvoiceTotals.ts').named).toEqual(['src/billing/invoiceTotals.ts']);
    expect(rank('validate Invoice.ts').named).toEqual(['src/billing/Invoice.ts']);
    expect(rank('validate nothing.ts').missing).toEqual(['nothing.ts']);
  });

  it('outlines every file when it fits, else summarises folders by their file count', () => {
    const files = Array.from({ length: 300 }, (_, i) => `src/f${Math.floor(i / 30)}/m${i}.ts`);
    expect(outlineFolders(files, 100_000)).toMatchObject({ complete: true });
    const small = outlineFolders(files, 300);
    expect(small.text).toContain('src/');
    expect(small.text).toMatch(/f9\/ — 30 files/);
    expect(small.text.length).toBeLessThanOrEqual(300);
  });

  it('opens the folders on the way to the files the task leads to before others', () => {
    const files = Array.from({ length: 2000 }, (_, i) => `src/f${Math.floor(i / 200)}/g${Math.floor(i / 20) % 10}/m${i}.ts`);
    const outline = outlineFolders(files, 2500, ['src/f7/g3/m1465.ts']);
    expect(outline.complete).toBe(false);
    expect(outline.text).toContain('\n      m1465.ts');
    expect(outline.text).toMatch(/g0\/ — 20 files/);
  });

  it("outlines exported symbols with TypeScript's own parser", async () => {
    const ts = await loadParser();
    const text = [
      'import { x } from "./x";',
      'export function total(items: Item[], tax = 0.2): number { return 0; }',
      'function hidden() {}',
      'export class Cart<T> extends Base {',
      '  private secret = 1;',
      '  add(item: T): void { }',
      '}',
      'export interface Item { name: string; price: number }',
      'export const rate = (n: number) => n * 2;',
      'export { x as y };',
    ].join('\n');
    expect(outlineSymbols(ts, 'src/cart.ts', text)).toEqual([
      'export function total(items: Item[], tax = 0.2): number',
      'export class Cart<T> extends Base',
      '  add(item: T): void',
      'export interface Item { name: string; price: number }',
      'export const rate = (n: number) =>',
      'export { x as y };',
    ]);
    expect(outlineSymbols(ts, 'lib/a.js', 'module.exports = { parse, format };\nexports.run = function () {};')).toEqual([
      'module.exports = { parse, format }',
      'exports.run = function',
    ]);
  });
});
