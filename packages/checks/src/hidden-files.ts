import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Folders not searched for secrets: version control, Cairn's own, and installed dependencies (large, and none of the user's). */
const SKIPPED = new Set(['.git', '.agentfs', '.cairn', 'node_modules', '.venv', 'venv', '__pycache__', 'target']);

/**
 * The `.env*` entries of a project that a check must not see — files, links and folders (`.envs/`), at any
 * depth, build output included — found without entering dependency folders, so finding them stays cheap on
 * large trees. Project-relative paths.
 */
export function findSecretFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.name.startsWith('.env')) found.push(path);
      else if (entry.isDirectory() && !SKIPPED.has(entry.name)) walk(join(dir, entry.name), path);
    }
  };
  walk(root, '');
  return found;
}

/** True for paths a check's view never shows (secrets, Cairn's own folders). */
export function isHiddenFromChecks(path: string): boolean {
  const parts = path.split('/');
  return parts[0] === '.agentfs' || parts[0] === '.cairn' || parts.some((part) => part.startsWith('.env'));
}
