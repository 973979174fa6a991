import { closeSync, lstatSync, mkdirSync, openSync, readlinkSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The system's folders a sealed check sees, read-only. */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/**
 * Lays out, in the host folder `skeleton`, the new root a sealed check pivots into: a mount point for each
 * folder bound read-only (links such as `/bin → usr/bin` made as links), the device nodes, `/proc`, `/tmp`,
 * and the project's path. Made here, without a process per folder, so the view is ready sooner. Returns the
 * paths to bind read-only (each folder once: none inside another).
 */
export function layOutRoot(skeleton: string, project: string, extra: readonly string[]): string[] {
  const binds: string[] = [];
  const laid = new Set<string>();
  for (const path of [...SYSTEM, ...extra]) {
    if (laid.has(path) || binds.some((bound) => path.startsWith(`${bound}/`))) continue;
    laid.add(path);
    let stat: import('node:fs').Stats;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    const target = join(skeleton, path);
    mkdirSync(dirname(target), { recursive: true });
    if (stat.isSymbolicLink()) {
      if (!SYSTEM.includes(path)) continue;
      symlinkSync(readlinkSync(path), target);
      continue;
    }
    if (stat.isDirectory()) mkdirSync(target, { recursive: true });
    else touch(target);
    binds.push(path);
  }
  const dev = join(skeleton, 'dev');
  mkdirSync(join(dev, 'shm'), { recursive: true });
  for (const device of DEVICES) touch(join(dev, device));
  symlinkSync('/proc/self/fd', join(dev, 'fd'));
  ['stdin', 'stdout', 'stderr'].forEach((name, fd) => symlinkSync(`/proc/self/fd/${fd}`, join(dev, name)));
  for (const folder of ['proc', 'tmp', '.old']) mkdirSync(join(skeleton, folder), { recursive: true });
  mkdirSync(join(skeleton, project), { recursive: true });
  return binds;
}

function touch(path: string): void {
  closeSync(openSync(path, 'a'));
}
