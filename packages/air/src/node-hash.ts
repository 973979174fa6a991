import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { decodeCanonical, encodeCanonical } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { writeCanonical } from './cbor-writer.js';
import { AirError } from './errors.js';

/** The CBOR self-describe tag 55799 (`d9 d9 f7`) that starts every AIR node's bytes. */
export const SELF_DESCRIBE_PREFIX = Uint8Array.of(0xd9, 0xd9, 0xf7);

/** A content hash: `sha256:` and 64 lowercase hex digits. */
export type Hash = `sha256:${string}`;

const HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** True when `text` is a content hash. */
export function isHash(text: unknown): text is Hash {
  return typeof text === 'string' && HASH_PATTERN.test(text);
}

/** A node's bytes: the self-describe tag, then the canonical encoding of the node's value. */
export function encodeNode(node: CborValue): Uint8Array {
  const written = writeCanonical(node, 0, SELF_DESCRIBE_PREFIX);
  if (written !== undefined) return written;
  const body = encodeCanonical(node);
  const out = new Uint8Array(SELF_DESCRIBE_PREFIX.length + body.length);
  out.set(SELF_DESCRIBE_PREFIX);
  out.set(body, SELF_DESCRIBE_PREFIX.length);
  return out;
}

/** Decodes a node's bytes strictly; the self-describe tag must lead. */
export function decodeNode(bytes: Uint8Array): CborValue {
  if (bytes.length < 3 || bytes[0] !== 0xd9 || bytes[1] !== 0xd9 || bytes[2] !== 0xf7) {
    throw new AirError('AIR_NODE_UNTAGGED', 'AIR node bytes must start with the self-describe tag 55799 (d9 d9 f7)', { offset: 0 });
  }
  return decodeCanonical(bytes.subarray(3));
}

/** Hex SHA-256 of bytes: the pure implementation, unless a host installed its native one (`useNativeSha256`). */
let sha256Hex: (bytes: Uint8Array) => string = (bytes) => bytesToHex(sha256(bytes));

/**
 * Installs a host's native SHA-256 (lowercase hex digest) for every content hash, after checking it against the
 * pure implementation on a few inputs; one that disagrees is not installed. Returns whether it was.
 */
export function useNativeSha256(hex: (bytes: Uint8Array) => string): boolean {
  const probes = [new Uint8Array(0), Uint8Array.of(0x61, 0x62, 0x63), new Uint8Array(200).map((_, i) => i)];
  for (const probe of probes) if (hex(probe) !== bytesToHex(sha256(probe))) return false;
  sha256Hex = hex;
  return true;
}

/** `sha256:` + hex SHA-256 of bytes. */
export function hashBytes(bytes: Uint8Array): Hash {
  return `sha256:${sha256Hex(bytes)}`;
}

/** The node hash: SHA-256 over the tagged canonical bytes. */
export function hashNode(node: CborValue): Hash {
  return hashBytes(encodeNode(node));
}
