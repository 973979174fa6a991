import { existsSync, readFileSync } from 'node:fs';
import { CairnError } from './errors.js';

/**
 * `.cairn/config.json` as a JSON object, undefined when there is no such file. A file that cannot be read, is
 * not JSON or is not an object is refused (`CAIRN_CONFIG`) with what is wrong and `hint` (where the settings
 * being read are described).
 */
export function readProjectConfig(configPath: string, hint: string): Record<string, unknown> | undefined {
  if (!existsSync(configPath)) return undefined;
  let text: string;
  try {
    text = readFileSync(configPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw configError(
      `cannot be read: ${code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : String(code)}`,
      hint,
    );
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw configError(`is not JSON: ${(error as Error).message}`, hint);
  }
  if (!isConfigObject(config)) throw configError('must hold a JSON object', hint);
  return config;
}

/** The error for a malformed `.cairn/config.json`: `message` says what is wrong, `hint` where the settings are described. */
export function configError(message: string, hint: string): CairnError {
  return new CairnError('CAIRN_CONFIG', `.cairn/config.json ${message}`, { hint });
}

/** A JSON object (not null, not an array). */
export function isConfigObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
