#!/usr/bin/env node
// The cairn command: the bundle (one file, each command's code loaded when it runs), or the built sources
// in ../dist while the bundle is not made yet (Node 20 runs no TypeScript).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = [new URL('../bundle/cairn.js', import.meta.url), new URL('../dist/cli.js', import.meta.url)].find((url) =>
  existsSync(fileURLToPath(url)),
);
if (entry === undefined) {
  process.stderr.write('cairn: the command is not built yet; run `pnpm build` in the Cairn repository\n');
  process.exit(1);
}
// A stdout that fails (a reader that closed the pipe, a full disk) is handled by main (src/output-loss.ts).
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
