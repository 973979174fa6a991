import { lstatSync, readFileSync } from 'node:fs';

/**
 * The hosts file a sealed check needs for `localhost` to resolve: undefined when the machine's (`path`, a
 * regular file) names `localhost` already, else its lines with `127.0.0.1 localhost` and `::1 localhost`
 * added. In the check's network namespace only the loopback exists, so no name server answers for it.
 */
export function hostsWithLocalhost(path = '/etc/hosts'): string | undefined {
  let text: string;
  try {
    if (!lstatSync(path).isFile()) return undefined;
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  if (namesLocalhost(text)) return undefined;
  const lines = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return `${lines}127.0.0.1 localhost\n::1 localhost\n`;
}

function namesLocalhost(text: string): boolean {
  return text.split('\n').some((line) => {
    const names = line.replace(/#.*/, '').trim().split(/\s+/).slice(1);
    return names.some((name) => name.toLowerCase() === 'localhost');
  });
}
