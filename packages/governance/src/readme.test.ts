import { runReadmeExample } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';

describe('the README example runs as written', () => {
  it("compiles an author's governance with the grant of the project's declared check", () => {
    const out = runReadmeExample(
      new URL('../', import.meta.url),
      '@cairn/governance',
      '{ grants, checks: governance.checks.map((check) => check.name), hash: typeof governance.manifestHash }',
    ) as { grants: string[]; checks: string[]; hash: string };
    expect(out.grants).toEqual(['fs: sys/fs@1', 'llm: sys/llm.basic@1', 'check: sys/check@1']);
    expect(out.checks).toEqual(['test']);
    expect(out.hash).toBe('string');
  });
});
