#!/usr/bin/env node
// Writes spec/schemas/*.schema.json and spec/defs/builtin-schemas.air.json (at the repository root) from the
// built package, so the published JSON and the code are one source. Run after `pnpm build`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILTIN_CAPS, BUILTIN_SCHEMAS } from '../dist/builtins.js';
import { commonSchema } from '../dist/json-schemas/common.js';
import { KIND_SCHEMAS } from '../dist/json-schemas/definitions.js';

const spec = fileURLToPath(new URL('../../../spec/', import.meta.url));
const write = (path, value) => writeFileSync(spec + path, JSON.stringify(value, null, 2) + '\n');
mkdirSync(spec + 'schemas', { recursive: true });
mkdirSync(spec + 'defs', { recursive: true });
write('schemas/common.schema.json', commonSchema);
for (const [kind, schema] of Object.entries(KIND_SCHEMAS)) write(`schemas/${kind}.schema.json`, schema);
write('defs/builtin-schemas.air.json', [...BUILTIN_SCHEMAS, ...BUILTIN_CAPS]);
console.log(
  `wrote ${Object.keys(KIND_SCHEMAS).length + 1} schemas and ${BUILTIN_SCHEMAS.length + BUILTIN_CAPS.length} built-in definitions to ${spec}`,
);
