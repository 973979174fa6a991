import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentFS, isAgentFSError } from '@cairn/agentfs';
import { CairnError } from '@cairn/api';
import type { ProjectLayout } from '@cairn/workspace';

/** Refuses a project folder that does not exist or is not a folder. */
export function requireDirectory(root: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(root).isDirectory();
  } catch {
    throw new CairnError('CAIRN_PROJECT', `the project folder ${root} does not exist`);
  }
  if (!isDirectory) throw new CairnError('CAIRN_PROJECT', `${root} is not a folder`);
}

/** Makes `.agentfs/` (with a .gitignore that keeps it out of commits), or says why the project cannot hold it. */
export function prepareAgentfsDir(layout: ProjectLayout): void {
  try {
    mkdirSync(layout.agentfsDir, { recursive: true });
    const ignore = join(layout.agentfsDir, '.gitignore');
    if (!existsSync(ignore)) writeFileSync(ignore, "# Cairn's databases: machine-local, never committed\n*\n");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw new CairnError(
        'CAIRN_PROJECT',
        `cannot write to ${layout.agentfsDir}: ${code === 'EROFS' ? 'the file system is read-only' : 'permission denied'}`,
        { hint: "Cairn keeps its databases in the project's .agentfs/ folder; the project must be writable" },
      );
    }
    throw error;
  }
}

/** Opens stable.db; a damaged one is refused with the way out (it only mirrors the working tree). */
export function openStable(layout: ProjectLayout): AgentFS {
  try {
    return AgentFS.open(layout.stablePath, { durability: 'full' });
  } catch (error) {
    if (isAgentFSError(error, 'ECORRUPT') || isAgentFSError(error, 'EINVAL')) {
      throw new CairnError('CAIRN_CORRUPT', `${layout.stablePath} cannot be opened: ${(error as Error).message}`, {
        hint: 'stable.db only mirrors your files; move it aside and Cairn rebuilds it on the next command',
        cause: error,
      });
    }
    throw error;
  }
}
