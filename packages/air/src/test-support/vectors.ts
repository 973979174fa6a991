import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The public conformance vectors kept in this package (`test/vectors/`, with their sources and licences). */
export const VECTORS_DIR = fileURLToPath(new URL('../../test/vectors/', import.meta.url));

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
