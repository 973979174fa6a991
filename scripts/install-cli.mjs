// Puts `cairn` on the PATH: packs the built CLI (its bundle, with the native modules as its only dependencies)
// and installs that package globally with npm. `npm_config_prefix` chooses another place to install to.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../apps/cli', import.meta.url));

/**
 * The environment for npm: this script's, less the settings pnpm passes its own scripts as `npm_config_*` that npm
 * does not know (it warns of each) or would read as its own (pnpm's rc file as npm's global config, pnpm's node-gyp).
 * The user's own settings (a prefix, a registry, a proxy) pass through.
 */
function npmEnvironment() {
  const pnpmOnly = ['verify_deps_before_run', 'npm_globalconfig', '_jsr_registry', 'node_gyp', 'reporter', 'globalconfig'];
  const env = { ...process.env };
  for (const key of pnpmOnly) {
    const name = `npm_config_${key}`;
    if (key !== 'globalconfig' || /pnpm/.test(env[name] ?? '')) delete env[name];
  }
  return env;
}
const out = mkdtempSync(join(tmpdir(), 'cairn-pack-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: cli, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(out).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`pnpm pack made no package in ${out}`);
  process.stdout.write('installing cairn (the native modules compile from source: a minute or two)\n');
  // npm 11 asks global installs to name the packages whose install scripts may run: the two native modules
  const scripts = '--allow-scripts=better-sqlite3,isolated-vm';
  const env = npmEnvironment();
  execFileSync('npm', ['install', '--global', '--no-fund', '--no-audit', scripts, join(out, tarball)], { stdio: 'inherit', env });
  const bin = execFileSync('npm', ['prefix', '--global'], { encoding: 'utf8', env }).trim();
  process.stdout.write(`cairn is installed: ${join(bin, 'bin', 'cairn')}\n`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
