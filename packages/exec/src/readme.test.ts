import { runReadmeExample } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';

describe('the README example runs as written', () => {
  it('writes a capture program, one call per change, and says how to install a known agent CLI', () => {
    const out = runReadmeExample(new URL('../', import.meta.url), '@cairn/exec', '{ calls, hint }') as { calls: string[]; hint: string };
    expect(out.calls).toEqual([
      `["put_file","src/new.ts","sha256:${'0'.repeat(64)}",12,420],`,
      '["move_file","old.txt","new.txt"],',
      '["delete_file","gone.txt"]',
    ]);
    expect(out.hint).toContain('npm install -g @anthropic-ai/claude-code');
  });
});
