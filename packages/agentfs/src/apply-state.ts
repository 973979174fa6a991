import type { EntryState } from './entry-state.js';
import type { StoreFileSystem } from './store-fs.js';

/** Makes `path` in a store hold `state` exactly (kind, bytes, permission bits). Directories are removed only when empty. */
export function applyState(fs: StoreFileSystem, path: string, state: EntryState): void {
  const current = fs.locate(path, false);
  const currentIsDir = current !== undefined && fs.lstat(path).isDirectory();
  switch (state.kind) {
    case 'absent':
      if (current === undefined) return;
      if (currentIsDir) fs.rmdir(path);
      else fs.unlink(path);
      return;
    case 'dir':
      if (current !== undefined && !currentIsDir) fs.unlink(path);
      fs.mkdir(path, { recursive: true });
      fs.chmod(path, state.mode);
      return;
    case 'file':
      if (currentIsDir) fs.rmdir(path);
      else if (current !== undefined && fs.lstat(path).isSymbolicLink()) fs.unlink(path);
      fs.writeFile(path, state.content, { mode: state.mode & 0o7777 });
      return;
    case 'symlink':
      if (current !== undefined) {
        if (currentIsDir) fs.rmdir(path);
        else fs.unlink(path);
      }
      fs.mkdir(parentOf(path), { recursive: true });
      fs.symlink(state.content.toString('utf8'), path);
      return;
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}
