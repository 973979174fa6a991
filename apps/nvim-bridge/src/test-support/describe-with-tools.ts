import { describe, it } from 'vitest';
import type { ToolLookup } from './optional-tool.js';

type Found<L> = L extends { found: true; tool: infer T } ? T : never;
type FoundTools<L extends readonly ToolLookup<unknown>[]> = { [K in keyof L]: Found<L[K]> };

/**
 * A `describe` whose tests run only when every tool in `lookups` was found; otherwise it holds one skipped
 * test per missing tool, named for it, whose skip note is that tool's one line.
 */
export function describeWithTools<const L extends readonly ToolLookup<unknown>[]>(
  title: string,
  lookups: L,
  body: (...tools: FoundTools<L>) => void,
): void {
  const missing = lookups.filter((l): l is Extract<ToolLookup<unknown>, { found: false }> => !l.found);
  if (missing.length === 0) {
    describe(title, () => body(...(lookups.map((l) => (l as { tool: unknown }).tool) as FoundTools<L>)));
    return;
  }
  describe(title, () => {
    for (const m of missing) it(`needs ${m.name}`, (ctx) => ctx.skip(m.line));
  });
}
