import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CairnError } from '@cairn/orchestrator';

/** The project a command works on: `--project DIR`, else the nearest folder upwards holding `.agentfs/`, else the current one. */
export function resolveProjectRoot(explicit: string | undefined, cwd = process.cwd()): string {
  if (explicit !== undefined) {
    const root = resolve(cwd, explicit);
    if (!existsSync(root)) throw new CairnError('CAIRN_PROJECT', `the project folder ${root} does not exist`);
    if (!statSync(root).isDirectory()) throw new CairnError('CAIRN_PROJECT', `${root} is not a folder`);
    return root;
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.agentfs'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}
