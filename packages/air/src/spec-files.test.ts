import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUILTIN_CAPS, BUILTIN_SCHEMAS } from './builtins.js';
import { commonSchema } from './json-schemas/common.js';
import { KIND_SCHEMAS } from './json-schemas/definitions.js';
import { parseNode } from './nodes.js';

const SPEC = fileURLToPath(new URL('../../../spec/', import.meta.url));
const read = (path: string) => JSON.parse(readFileSync(SPEC + path, 'utf8'));

describe('spec/ files are the code’s (regenerate with `pnpm --filter @cairn/air build && pnpm --filter @cairn/air gen:spec`)', () => {
  it('spec/schemas/*.schema.json', () => {
    expect(read('schemas/common.schema.json')).toEqual(commonSchema);
    for (const [kind, schema] of Object.entries(KIND_SCHEMAS)) expect(read(`schemas/${kind}.schema.json`)).toEqual(schema);
  });

  it('spec/defs/builtin-schemas.air.json, every definition valid', () => {
    const defs = read('defs/builtin-schemas.air.json');
    expect(defs).toEqual([...BUILTIN_SCHEMAS, ...BUILTIN_CAPS]);
    for (const def of defs) expect(parseNode(def), def.name).toMatchObject({ ok: true });
  });

  it('src/json-schemas/validators.generated.ts is the code of the schemas (regenerate with `pnpm --filter @cairn/air gen:validators`)', () => {
    const script = fileURLToPath(new URL('../scripts/compile-schemas.mjs', import.meta.url));
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
  });
});
