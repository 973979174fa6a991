import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomically } from '@cairn/api';

/** `$CAIRN_HOME/…/previews/<id>.diff`: the proposal as a unified diff, for tools that read files. */
export function writePreview(previewsDir: string, agentId: string, diff: string): string {
  mkdirSync(previewsDir, { recursive: true });
  const path = join(previewsDir, `${agentId}.diff`);
  writeAtomically(path, diff);
  return path;
}

export function removePreview(previewsDir: string, agentId: string): void {
  rmSync(join(previewsDir, `${agentId}.diff`), { force: true });
}
