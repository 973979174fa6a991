// Bundles the built `cairn` command into bundle/: one entry file that loads each command's code only when the
// command runs, the sandbox's child entry where the sandbox looks for it, and the example programs of
// `cairn demo`. Native modules stay external (they are the CLI's only runtime dependencies).
//
// Three steps:
// 1. esbuild bundles TypeScript's compiler alone into vendor/typescript.js (6.5 MB, loaded only to outline a
//    project's symbols for a model's prompt), so the next steps never read it.
// 2. esbuild bundles the rest with code splitting. It puts the code that a set of commands shares into a chunk of
//    its own for each set, so `cairn ls` loaded 24 files, and Node's ES module loader pays about a millisecond
//    per file.
// 3. rollup regroups those chunks (esbuild cannot be told how to group them): every chunk that the everyday
//    commands load, and that loads nothing large itself, goes into one file, common.js. `cairn ls` then loads
//    cairn.js and common.js; the large chunks (the orchestrator, the daemon, model clients) stay as esbuild
//    split them, loaded only by the commands that use them.
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { rollup } from 'rollup';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..');
const out = join(cli, 'bundle');
// the sandbox is the orchestrator's dependency, found from there
const fromOrchestrator = createRequire(createRequire(join(cli, 'package.json')).resolve('@cairn/orchestrator'));
const sandboxDist = dirname(fromOrchestrator.resolve('@cairn/sandbox'));
// TypeScript's compiler outlines symbols for the repo map, in the model package
const fromModel = createRequire(fromOrchestrator.resolve('@cairn/model'));
const typescriptEntry = fromModel.resolve('typescript');

const native = ['better-sqlite3', 'isolated-vm', '@pydantic/monty', 'fsevents'];
// how the split code imports the vendored compiler until step 3 gives the import its place
const VENDORED_TYPESCRIPT = 'cairn:vendor/typescript';

/** The commands run most (each talks to the daemon, or opens the project only when none answers). */
const EVERYDAY = [
  ...['list', 'status', 'diff', 'spawn', 'events', 'log', 'review', 'down', 'inbox'].map((name) => `commands/${name}`),
  ...['run-command', 'output', 'context'],
];
/** A chunk this size or larger stays a file of its own. */
const LARGE_CHUNK_BYTES = 48 * 1024;

const shared = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // packages written as CommonJS call require(); an ES module bundle gets one, made on a chunk's first call (most
  // chunks never make one, and making it costs about half a millisecond)
  banner: {
    js: "import { createRequire as __cairnRequire } from 'node:module'; let __cairnMade; const require = (id) => (__cairnMade ??= __cairnRequire(import.meta.url))(id);",
  },
  // and CommonJS packages (TypeScript's parser) that read their own file name get the chunk's
  define: { __filename: 'import.meta.filename', __dirname: 'import.meta.dirname' },
  legalComments: 'none',
  // less to parse at every start; names are kept, so stacks still read
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

rmSync(out, { recursive: true, force: true });
const split = mkdtempSync(join(tmpdir(), 'cairn-bundle-'));
try {
  await build({ ...shared, entryPoints: [typescriptEntry], outfile: join(out, 'vendor', 'typescript.js') });
  const { metafile } = await build({
    ...shared,
    entryPoints: { cairn: join(cli, 'dist', 'cli.js'), 'child/child-main': join(sandboxDist, 'child', 'child-main.js') },
    outdir: split,
    splitting: true,
    metafile: true,
    external: native,
    chunkNames: '[name]-[hash]',
    plugins: [
      {
        name: 'vendored-typescript',
        setup: (esbuild) => esbuild.onResolve({ filter: /^typescript$/ }, () => ({ path: VENDORED_TYPESCRIPT, external: true })),
      },
    ],
  });
  await regroup(split, everydayChunks(metafile));
} finally {
  rmSync(split, { recursive: true, force: true });
}
mkdirSync(join(out, 'examples'), { recursive: true });
cpSync(join(cli, '..', '..', 'examples'), join(out, 'examples'), { recursive: true });

/** The split output files whose entry is one of the everyday commands' modules (absolute paths). */
function everydayChunks(metafile) {
  const entries = new Set(EVERYDAY.map((name) => relative(process.cwd(), join(cli, 'dist', `${name}.js`))));
  const chunks = Object.entries(metafile.outputs)
    .filter(([, output]) => output.entryPoint !== undefined && entries.has(output.entryPoint))
    .map(([file]) => join(process.cwd(), file));
  if (chunks.length !== entries.size)
    throw new Error(`bundle: found ${chunks.length} of the ${entries.size} everyday commands' chunks; is EVERYDAY out of date?`);
  return chunks;
}

/** Step 3: the split chunks written again into bundle/, the everyday commands' light chunks merged. */
async function regroup(dir, everyday) {
  const bundle = await rollup({
    input: { cairn: join(dir, 'cairn.js'), 'child/child-main': join(dir, 'child', 'child-main.js') },
    external: (id) => id.startsWith('node:') || builtinModules.includes(id) || native.includes(id) || id === VENDORED_TYPESCRIPT,
    // esbuild's output is already what it should be; rollup only moves it between files
    treeshake: false,
    onwarn: (warning, warn) => {
      if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
    },
  });
  const light = new Map();
  /** True when the module and all it imports are small and load no native module (nor the compiler). */
  const isLight = (id, moduleInfo) => {
    if (light.has(id)) return light.get(id);
    light.set(id, true); // a cycle is judged by its other members
    const info = moduleInfo(id);
    const verdict = info.isExternal
      ? !native.includes(id) && id !== VENDORED_TYPESCRIPT
      : statSync(id).size < LARGE_CHUNK_BYTES && info.importedIds.every((dep) => isLight(dep, moduleInfo));
    light.set(id, verdict);
    return verdict;
  };
  // what cairn.js itself loads goes into start.js (`cairn --version` and `cairn --help` load no more), and what
  // the everyday commands load into common.js
  const atStart = new Set();
  const common = new Set();
  let reached = false;
  await bundle.write({
    dir: out,
    format: 'es',
    entryFileNames: '[name].js',
    chunkFileNames: '[name].js',
    paths: { [VENDORED_TYPESCRIPT]: './vendor/typescript.js' },
    manualChunks: (id, { getModuleInfo }) => {
      if (!reached) {
        addClosure(atStart, join(dir, 'cairn.js'), getModuleInfo, () => true);
        for (const chunk of everyday) addClosure(common, chunk, getModuleInfo, isLight);
        reached = true;
      }
      if (getModuleInfo(id).isEntry) return undefined;
      if (atStart.has(id)) return 'start';
      if (common.has(id)) return 'common';
      // the rest keep esbuild's names (with its content hash)
      return basename(id, '.js');
    },
  });
  await bundle.close();
}

/** Adds `id` and what it imports (skipping external modules, and any module `admit` refuses) to `into`. */
function addClosure(into, id, moduleInfo, admit) {
  if (into.has(id) || moduleInfo(id).isExternal || !admit(id, moduleInfo)) return;
  into.add(id);
  for (const dep of moduleInfo(id).importedIds) addClosure(into, dep, moduleInfo, admit);
}
