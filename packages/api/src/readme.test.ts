import { describe, expect, it } from 'vitest';
import { runReadmeExample } from './testing/readme-example.js';

describe('the README example runs as written', () => {
  it('builds an agent spec, refuses a bad language with a code, and makes an error with a hint', () => {
    const out = runReadmeExample(
      new URL('../', import.meta.url),
      '@cairn/api',
      '{ spec, refused, known: { code: known.code, hint: known.hint } }',
    ) as {
      spec: { task: string; origin: string; lang: string; code: string };
      refused: string;
      known: { code: string; hint: string };
    };
    expect([out.spec.task, out.spec.lang, out.spec.code]).toEqual(['rename x to count', 'js', "await write_file('a.txt', 'hi\\n');"]);
    expect(out.refused).toMatch(/unknown language "rust"/);
    expect(out.known).toEqual({ code: 'CAIRN_NOT_FOUND', hint: 'see them with `cairn ls`' });
  });
});
