#!/usr/bin/env node
// Checks the layer rule of ARCHITECTURE.md: imports point down only, L1 packages do not import each other,
// apps do not import apps, nothing reaches into another package's src/, and L0 imports no node:* module
// (except in an L0 package's `src/node/`, the Node-only subpath export such as `@cairn/air/node`, and in tests).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Layer of every workspace package; a package missing here is an error. */
export const LAYERS = {
  '@cairn/air': 0,
  '@cairn/triage': 0,
  '@cairn/agentfs': 1,
  '@cairn/sandbox': 1,
  '@cairn/api': 2,
  '@cairn/model': 3,
  '@cairn/checks': 3,
  '@cairn/workspace': 3,
  '@cairn/governance': 4,
  '@cairn/exec': 4,
  '@cairn/orchestrator': 5,
  '@cairn/remote': 6,
  '@cairn/daemon': 7,
  '@cairn/mcp': 7,
  '@cairn/cli': 8,
  '@cairn/nvim-bridge': 8,
  '@cairn/bench': 9,
  '@cairn/integration-tests': 9,
};

/** The top layer (benchmarks, end-to-end tests): its packages may import each other. */
const TOP = Math.max(...Object.values(LAYERS));

/**
 * Folders of a package's src/, lowest first: a file may import files of its own folder and of folders before
 * it, never after (tests may import anything). Files directly in src/ (the public entry) sit above them all.
 */
export const FOLDERS = {
  '@cairn/orchestrator': [
    'events',
    'run',
    'tools',
    'programs',
    'agents',
    'review',
    'sync',
    'replay',
    'inbox',
    'project',
    'testing',
    'test-support',
  ],
};

const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function listWorkspacePackages() {
  const out = [];
  for (const group of ['packages', 'apps', 'bench', 'tests']) {
    const dir = join(ROOT, group);
    let entries;
    try {
      entries = statSync(join(dir, 'package.json'), { throwIfNoEntry: false }) ? [''] : readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of entries) {
      const pkgDir = join(dir, name);
      const manifest = statSync(join(pkgDir, 'package.json'), { throwIfNoEntry: false });
      if (manifest) out.push({ dir: pkgDir, json: JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) });
    }
  }
  return out;
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** The folder of a file under src/ ('' for the package's entry files), and its rank in the package's order. */
function folderOf(srcDir, file, order) {
  const parts = relative(srcDir, file).split('/');
  const folder = parts.length > 1 ? parts[0] : '';
  return { folder, rank: folder === '' ? order.length : order.indexOf(folder) };
}

const isTest = (file) => /\.test(-d)?\.ts$/.test(file);

/** Import cycles inside one package and, where FOLDERS orders its folders (`order`), imports that point up. */
function findFolderProblems(pkg, srcDir, files, order) {
  const problems = [];
  const graph = new Map();
  for (const file of files) {
    if (isTest(file)) continue;
    const where = relative(ROOT, file);
    const from = order === undefined ? { folder: '', rank: -1 } : folderOf(srcDir, file, order);
    if (order !== undefined && from.rank < 0)
      problems.push(`${where}: folder ${from.folder}/ of ${pkg.json.name} has no place in FOLDERS (scripts/check-layers.mjs)`);
    const edges = [];
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec.startsWith('.')) continue;
      const target = resolve(file, '..', spec).replace(/\.js$/, '.ts');
      edges.push(target);
      if (order === undefined) continue;
      const to = folderOf(srcDir, target, order);
      if (from.rank >= 0 && to.rank > from.rank)
        problems.push(`${where}: ${from.folder || 'src'}/ imports ${relative(srcDir, target)}, a folder above it (points up)`);
    }
    graph.set(file, edges);
  }
  // cycles: a depth-first search that reports each cycle once, by its first file
  const state = new Map();
  const stack = [];
  const visit = (file) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'open') {
        const cycle = stack.slice(stack.indexOf(next)).map((f) => relative(srcDir, f));
        problems.push(`${relative(ROOT, next)}: import cycle ${[...cycle, cycle[0]].join(' -> ')}`);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return problems;
}

/** Every violation in the workspace, as `file: message` lines. */
export function findViolations(packages = listWorkspacePackages(), folders = FOLDERS) {
  const problems = [];
  const names = new Set(packages.map((p) => p.json.name));
  for (const pkg of packages) {
    const name = pkg.json.name;
    const layer = LAYERS[name];
    if (layer === undefined) {
      problems.push(`${relative(ROOT, pkg.dir)}/package.json: package ${name} has no layer in scripts/check-layers.mjs`);
      continue;
    }
    const srcDir = join(pkg.dir, 'src');
    let files = [];
    try {
      files = sourceFiles(srcDir);
    } catch {
      continue;
    }
    problems.push(...findFolderProblems(pkg, srcDir, files, folders[name]));
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const where = relative(ROOT, file);
      for (const match of text.matchAll(IMPORT)) {
        const spec = match[1] ?? match[2] ?? match[3];
        const inSrc = relative(srcDir, file);
        const nodeSubpath = inSrc.split('/')[0] === 'node' || inSrc.startsWith('test-support/') || /\.test(-d)?\.ts$/.test(inSrc);
        if (layer === 0 && !nodeSubpath && (spec.startsWith('node:') || ['fs', 'path', 'os', 'child_process', 'crypto'].includes(spec))) {
          problems.push(`${where}: L0 package ${name} imports ${spec}; L0 does no I/O`);
        }
        if (spec.startsWith('.')) {
          const target = resolve(file, '..', spec);
          if (!target.startsWith(pkg.dir + '/')) problems.push(`${where}: relative import ${spec} leaves package ${name}`);
          continue;
        }
        const depName = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!names.has(depName) && LAYERS[depName] === undefined) continue;
        if (depName === name) continue;
        if (/\/src(\/|$)/.test(spec.slice(depName.length))) problems.push(`${where}: imports ${spec}, inside another package's src/`);
        const depLayer = LAYERS[depName];
        if (depLayer === undefined) continue;
        if (depLayer > layer) problems.push(`${where}: L${layer} ${name} imports L${depLayer} ${depName} (points up)`);
        else if (depLayer === layer && layer !== TOP)
          problems.push(`${where}: ${name} imports ${depName} of the same layer L${layer} (sideways)`);
      }
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = findViolations();
  if (problems.length > 0) {
    console.error(`layer check: ${problems.length} violation(s)\n` + problems.map((p) => `  ${p}`).join('\n'));
    process.exit(1);
  }
  console.log(`layer check: ok (${listWorkspacePackages().length} packages)`);
}
