import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Overlay } from '@cairn/agentfs';

/**
 * Writes an agent's proposal so far into `dir` as its view's lower layer (or over a copy of the project):
 * files with their bytes and modes, links, folders with their modes. Returns the paths it deletes, for the view
 * to remove. What an agent CLI sees of its earlier runs is then exactly its proposal.
 */
export function writeAgentLayer(overlay: Overlay, dir: string): string[] {
  const deleted: string[] = [];
  for (const change of overlay.changes()) {
    const target = join(dir, change.path);
    if (change.status === 'deleted') {
      deleted.push(change.path);
      rmSync(target, { recursive: true, force: true });
      continue;
    }
    const after = change.after;
    if (after.kind === 'absent') continue;
    if (after.kind === 'dir') {
      mkdirSync(target, { recursive: true });
      chmodSync(target, after.mode & 0o7777);
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    rmSync(target, { recursive: true, force: true });
    if (after.kind === 'symlink') symlinkSync(after.content.toString('utf8'), target);
    else {
      writeFileSync(target, after.content);
      chmodSync(target, after.mode & 0o7777);
    }
  }
  return deleted;
}
