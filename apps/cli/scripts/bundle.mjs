// Bundles the built `cairn` command into bundle/: one entry file that loads each command's code only when the
// command runs (split chunks), the sandbox's child entry where the sandbox looks for it, and the example
// programs of `cairn demo`. Native modules stay external (they are the CLI's only runtime dependencies).
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..');
const out = join(cli, 'bundle');
// the sandbox is the orchestrator's dependency, found from there
const fromOrchestrator = createRequire(createRequire(join(cli, 'package.json')).resolve('@cairn/orchestrator'));
const sandboxDist = dirname(fromOrchestrator.resolve('@cairn/sandbox'));

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { cairn: join(cli, 'dist', 'cli.js'), 'child/child-main': join(sandboxDist, 'child', 'child-main.js') },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'isolated-vm', '@pydantic/monty', 'fsevents'],
  // packages written as CommonJS call require(); an ES module bundle gets one, made on a chunk's first call (most
  // chunks never make one, and making it costs about half a millisecond)
  banner: {
    js: "import { createRequire as __cairnRequire } from 'node:module'; let __cairnMade; const require = (id) => (__cairnMade ??= __cairnRequire(import.meta.url))(id);",
  },
  // and CommonJS packages (TypeScript's parser) that read their own file name get the chunk's
  define: { __filename: 'import.meta.filename', __dirname: 'import.meta.dirname' },
  // chunks beside the entry: the sandbox finds its child entry (child/child-main.js) next to its own code
  chunkNames: '[name]-[hash]',
  legalComments: 'none',
  // less to parse at every start; names are kept, so stacks still read
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
mkdirSync(join(out, 'examples'), { recursive: true });
cpSync(join(cli, '..', '..', 'examples'), join(out, 'examples'), { recursive: true });
