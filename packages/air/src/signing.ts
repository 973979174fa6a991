import * as ed from '@noble/ed25519';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { verifyEd25519Strict } from './ed25519-strict.js';

ed.hashes.sha512 = sha512;

/** How an adapter signs its receipts: Ed25519 (public key) or HMAC-SHA-256 (shared key). */
export type SignatureScheme = 'ed25519' | 'hmac-sha256';

/**
 * Verifies an Ed25519 signature under AIR's one rule: RFC 8032, cofactorless, canonical encodings, S < L, no
 * small-order key or R, torsion-free key (see `ed25519-strict.ts`). Never throws: malformed input is simply
 * not a valid signature.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  return verifyEd25519Strict(publicKey, message, signature);
}

/** Signs with an Ed25519 secret key (32 bytes). */
export function signEd25519(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  return ed.sign(message, secretKey);
}

/** The Ed25519 public key of a secret key. */
export function ed25519PublicKey(secretKey: Uint8Array): Uint8Array {
  return ed.getPublicKey(secretKey);
}

/** HMAC-SHA-256 of a message. */
export function hmacSha256(key: Uint8Array, message: Uint8Array): Uint8Array {
  return hmac(sha256, key, message);
}

/** Compares two byte strings in time independent of where they differ. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
