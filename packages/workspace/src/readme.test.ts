import { runReadmeExample } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';

describe('the README example runs as written', () => {
  it('names the project paths, carries a proposal onto an edited buffer, and takes the project lock', () => {
    const out = runReadmeExample(
      new URL('../', import.meta.url),
      '@cairn/workspace',
      "{ stable: layout.stablePath.endsWith('.agentfs/stable.db'), carried, inside }",
    ) as { stable: boolean; carried: unknown; inside: string };
    expect(out).toEqual({ stable: true, carried: { ok: true, text: 'zero\none\nTWO\n' }, inside: 'held' });
  });
});
