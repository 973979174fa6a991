#!/usr/bin/env node
// The bridge Neovim starts. The code is built JavaScript in ../dist (Node 20 runs no TypeScript).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('cairn-nvim-bridge: not built yet; run `pnpm build` in the Cairn repository\n');
  process.exit(1);
}
await import(entry.href);
