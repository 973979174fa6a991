import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

/** The bearer token workers present to the coordinator's endpoint: kept in `path` (mode 0600), made on first use. */
export function loadBearer(path: string): string {
  try {
    const text = readFileSync(path, 'utf8').trim();
    if (text !== '') return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // hex: a token never starts with a dash, which a command line would take for an option
  const token = randomBytes(24).toString('hex');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return token;
}
