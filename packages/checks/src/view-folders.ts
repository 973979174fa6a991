import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { programFolders, programPath } from './check-env.js';

/**
 * The folders outside the system's a writable view binds read-only: where programs on `PATH` live, the roots of
 * version managers whose shims are there, where the program itself is installed, and the resolver's settings.
 */
export function viewFolders(program: string): string[] {
  return [...programFolders(homedir()), ...shimRoots(), ...installFolders(program), ...resolverFolders()];
}

/**
 * Where the program is installed, when its real path lies outside the folders on `PATH` (an npm package's
 * `bin` link leads into its `node_modules`): that `node_modules` folder (or the program's own folder), bound
 * read-only so the program and what it loads are there in the view.
 */
function installFolders(program: string): string[] {
  if (program === '') return [];
  const candidates = program.includes('/')
    ? [program]
    : programPath()
        .split(':')
        .map((dir) => join(dir, program));
  for (const candidate of candidates) {
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      continue;
    }
    const at = real.indexOf('/node_modules/');
    const folder = at < 0 ? dirname(real) : real.slice(0, at + '/node_modules'.length);
    return folder === homedir() || folder === '/' ? [] : [folder];
  }
  return [];
}

/**
 * The roots of version managers whose shims are on `PATH` (`~/.pyenv/shims` runs `~/.pyenv/libexec/pyenv`; asdf
 * and rbenv alike): bound read-only with them, so a shim works in the view.
 */
function shimRoots(): string[] {
  return programPath()
    .split(':')
    .filter((dir) => dir.startsWith('/') && dir.endsWith('/shims'))
    .map((dir) => dirname(dir));
}

/**
 * Where the resolver's settings really are when `/etc/resolv.conf` is a link out of /etc (systemd-resolved's
 * `/run/systemd/resolve/`): bound read-only too, so names resolve in the view as outside it.
 */
function resolverFolders(): string[] {
  try {
    const real = realpathSync('/etc/resolv.conf');
    return real.startsWith('/etc/') ? [] : [dirname(real)];
  } catch {
    return [];
  }
}
