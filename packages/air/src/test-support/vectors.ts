import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `../shared/vectors` beside the repository; undefined when it is absent (tests then skip, saying why). */
export const VECTORS_DIR = fileURLToPath(new URL('../../../../../shared/vectors/', import.meta.url));
export const HAVE_VECTORS = existsSync(VECTORS_DIR);
export const NO_VECTORS_REASON = `shared conformance vectors not found at ${VECTORS_DIR}`;

/** Reads and parses a vector file. */
export function readVectors<T>(name: string): T {
  return JSON.parse(readFileSync(VECTORS_DIR + name, 'utf8')) as T;
}

/** Hex to bytes. */
export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

/** Bytes to hex. */
export function toHex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
