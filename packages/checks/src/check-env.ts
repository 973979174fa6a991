import { dirname } from 'node:path';

/** The environment a check's command runs with: nothing of the user's but the path to programs and the locale. */
export function checkEnvironment(home: string, tmp: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {
    PATH: programPath(base),
    HOME: home,
    TMPDIR: tmp,
    TERM: 'dumb',
    CI: '1',
    NO_COLOR: '1',
  };
  for (const key of ['LANG', 'LC_ALL', 'TZ']) {
    const value = base[key];
    if (value !== undefined && value !== '') env[key] = value;
  }
  return env;
}

/** `PATH`, with the folder of the Node that runs Cairn added when it is missing (so `node` and `npm` are found). */
export function programPath(base: NodeJS.ProcessEnv = process.env): string {
  const parts = (base.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':').filter((part) => part !== '');
  const nodeDir = dirname(process.execPath);
  if (!parts.includes(nodeDir)) parts.push(nodeDir);
  return parts.join(':');
}

/**
 * Folders outside the system's a sealed check still needs, bound read-only: where programs on `PATH` and
 * the running Node live (version managers put them under the home folder). Never the home folder itself
 * or a folder of secrets.
 */
export function programFolders(home: string | undefined, base: NodeJS.ProcessEnv = process.env): string[] {
  const secret = /\/\.(ssh|gnupg|aws|azure|kube|docker|cairn|config\/gcloud)(\/|$)/;
  const folders = new Set<string>([dirname(dirname(process.execPath))]);
  for (const part of programPath(base).split(':')) if (part.startsWith('/')) folders.add(part);
  return [...folders].filter((folder) => folder !== '/' && folder !== home && !secret.test(`${folder}/`) && !/[\n\r]/.test(folder));
}
