// A vitest global setup: refuses to run tests against stale builds. Several tests fork plain node on a
// package's dist/ (the sandbox's children, crash tests, the cairn binary), so a dist/ older than its src/
// would test old code without saying so. `pnpm test` builds first; a bare `vitest` run is told to.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function newest(dir: string, keep: (name: string) => boolean): { path: string; mtimeMs: number } | undefined {
  let best: { path: string; mtimeMs: number } | undefined;
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      // test-support/ is left out of builds (tsconfig.build.json), so it never makes a dist/ stale.
      if (entry.isDirectory()) {
        if (entry.name !== 'test-support') walk(path);
      } else if (keep(entry.name)) {
        const mtimeMs = statSync(path).mtimeMs;
        if (best === undefined || mtimeMs > best.mtimeMs) best = { path, mtimeMs };
      }
    }
  };
  walk(dir);
  return best;
}

/** The packages whose src/ is newer than their dist/ (or that have no dist/ at all). */
export function staleBuilds(root = ROOT): string[] {
  const stale: string[] = [];
  for (const group of ['packages', 'apps', 'bench']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    const dirs = group === 'bench' ? [groupDir] : readdirSync(groupDir).map((name) => join(groupDir, name));
    for (const dir of dirs) {
      if (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src'))) continue;
      const source = newest(join(dir, 'src'), (name) => /\.(ts|mts)$/.test(name) && !/\.test(-d)?\.ts$/.test(name));
      if (source === undefined) continue;
      const built = existsSync(join(dir, 'dist')) ? newest(join(dir, 'dist'), (name) => name.endsWith('.js')) : undefined;
      if (built === undefined) stale.push(`${relative(root, dir)} has no dist/`);
      else if (source.mtimeMs > built.mtimeMs + 1) stale.push(`${relative(root, source.path)} is newer than ${relative(root, dir)}/dist/`);
    }
  }
  return stale;
}

export default function setup(): void {
  const stale = staleBuilds();
  if (stale.length > 0) {
    throw new Error(
      `the build is stale, so tests would run old code:\n  ${stale.join('\n  ')}\nrun \`pnpm build\` (or \`pnpm test\`, which builds first)`,
    );
  }
}
