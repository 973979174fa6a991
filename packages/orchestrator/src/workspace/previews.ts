import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes a file through a temp file and a rename, so a reader never sees half of it. */
export function writeAtomically(path: string, content: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, content);
  renameSync(temp, path);
}

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
