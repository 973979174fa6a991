import { runReadmeExample } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';

describe('the README example runs as written', () => {
  it('says a server that is not there is unreachable, and takes the program out of an answer', () => {
    const out = runReadmeExample(new URL('../', import.meta.url), '@cairn/model', '{ fault, program }') as {
      fault: string;
      program: { ok: boolean; code: string };
    };
    expect(out.fault).toBe('model-unreachable');
    expect(out.program).toEqual({ ok: true, code: "await write_file('hello.txt', 'hi\\n');\n" });
  });
});
