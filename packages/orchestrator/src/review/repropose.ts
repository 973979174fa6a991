import type { Overlay, PreImage } from '@cairn/agentfs';
import { stateOf } from '@cairn/agentfs';

/**
 * Writes accepted states back into an agent's overlay after an undo, so they are a proposal again: the
 * overlay's merge base for each path is what stable holds now (the state before the accept).
 */
export function reproposeInOverlay(overlay: Overlay, images: readonly PreImage[]): void {
  const latest = new Map(images.map((image) => [image.path, image.after]));
  overlay.upper.transaction(() => {
    for (const [path, after] of [...latest].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const at = '/' + path;
      const now = stateOf(overlay.fs, at);
      if (after.kind === 'absent') {
        if (now.kind !== 'absent') overlay.fs.rm(at, { recursive: true });
      } else if (after.kind === 'dir') {
        if (now.kind !== 'dir') {
          if (now.kind !== 'absent') overlay.fs.rm(at, { recursive: true });
          overlay.fs.mkdir(at, { recursive: true, mode: after.mode & 0o7777 });
        }
      } else if (after.kind === 'file') {
        if (now.kind === 'dir' || now.kind === 'symlink') overlay.fs.rm(at, { recursive: true });
        overlay.fs.writeFile(at, after.content, { mode: after.mode & 0o7777 });
      } else {
        if (now.kind !== 'absent') overlay.fs.rm(at, { recursive: true });
        overlay.fs.symlink(after.content.toString('utf8'), at);
      }
    }
  });
}
