// Puts `cairn` on the PATH: packs the built CLI (its bundle, with the native modules as its only dependencies)
// and installs that package globally with npm. `npm_config_prefix` chooses another place to install to.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../apps/cli', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'cairn-pack-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: cli, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(out).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`pnpm pack made no package in ${out}`);
  process.stdout.write('installing cairn (the native modules compile from source: a minute or two)\n');
  // npm 11 asks global installs to name the packages whose install scripts may run: the two native modules
  const scripts = '--allow-scripts=better-sqlite3,isolated-vm';
  execFileSync('npm', ['install', '--global', '--no-fund', '--no-audit', scripts, join(out, tarball)], { stdio: 'inherit' });
  const bin = execFileSync('npm', ['prefix', '--global'], { encoding: 'utf8' }).trim();
  process.stdout.write(`cairn is installed: ${join(bin, 'bin', 'cairn')}\n`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
