import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders not searched for secrets: dependencies and build output hold none of the user's. */
const SKIPPED = new Set(['.git', '.agentfs', '.cairn', 'node_modules', 'target', 'dist', 'build', '.venv', 'venv', '__pycache__']);
const DEPTH = 4;

/**
 * The `.env*` files of a project that a check must not see, found in its top folders (to a depth of four,
 * skipping dependency and build folders), so finding them stays cheap on large trees.
 */
export function findSecretFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string, depth: number): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.name.startsWith('.env') && !entry.isDirectory()) found.push(path);
      else if (entry.isDirectory() && depth < DEPTH && !SKIPPED.has(entry.name)) walk(join(dir, entry.name), path, depth + 1);
    }
  };
  walk(root, '', 1);
  return found;
}

/** True for paths a check's view never shows (secrets, Cairn's own folders). */
export function isHiddenFromChecks(path: string): boolean {
  const parts = path.split('/');
  return parts[0] === '.agentfs' || parts[0] === '.cairn' || parts.some((part) => part.startsWith('.env'));
}
