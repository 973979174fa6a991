import { runReadmeExample } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';

describe('the README example runs as written', () => {
  it('suggests the test script, and runs a command over a proposal that leaves the working tree alone', () => {
    const out = runReadmeExample(
      new URL('../', import.meta.url),
      '@cairn/checks',
      "{ suggested: suggested.map((s) => [s.name, s.command]), status: run.status, output: run.output.toString(), left: ['greeting.txt', 'scratch.txt'].filter((await import('node:fs')).existsSync) }",
    ) as { suggested: [string, string[]][]; status: string; output: string; left: string[] };
    expect(out.suggested).toEqual([['test', ['npm', 'run', 'test']]]);
    expect([out.status, out.output]).toEqual(['passed', 'hello\n']);
    expect(out.left).toEqual([]);
  });
});
