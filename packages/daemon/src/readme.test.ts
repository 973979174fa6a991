import { runReadmeExample } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';

describe('the README example runs as written', () => {
  it('starts a daemon, spawns through its client, and reads the proposal back', () => {
    const out = runReadmeExample(new URL('../', import.meta.url), '@cairn/daemon', '{ state: done.state, diff }') as {
      state: string;
      diff: string;
    };
    expect(out.state).toBe('reviewing');
    expect(out.diff).toContain('+const greeting = "hi";');
    expect(out.diff).toContain('-var greeting = "hi";');
  });
});
