import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

ed.hashes.sha512 = sha512;

/**
 * The one Ed25519 rule of AIR (SPEC §3.4): RFC 8032 verification, cofactorless ([S]B = R + [k]A exactly), with
 * canonical encodings only (y < p, no negative zero), S < L, and neither the key nor R of small order. A
 * registered key must also be torsion-free. Both verifiers (the pure one and the OpenSSL one) apply exactly this
 * rule, so a journal recorded with one replays with the other.
 */

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const { Point } = ed;

/** The canonical encodings of the eight points of order dividing 8 (identity, order 2, 4 and 8). */
export const SMALL_ORDER_ENCODINGS: readonly string[] = Object.freeze([
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
]);
const SMALL_ORDER = new Set(SMALL_ORDER_ENCODINGS);

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/**
 * True when 32 bytes are a canonical point encoding as far as bytes tell: y < p = 2^255 - 19. (Whether y is on
 * the curve, and negative zero, need the decoder.)
 */
export function canonicalY(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  if ((bytes[31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i > 0; i--) if (bytes[i] !== 0xff) return true;
  return bytes[0]! < 0xed;
}

/** True when the bytes encode (canonically or not) a point of small order. Cheap: no decoding. */
export function isSmallOrderEncoding(bytes: Uint8Array): boolean {
  return bytes.length === 32 && SMALL_ORDER.has(hex(bytes));
}

/** Why a public key cannot be registered, or undefined when it can. */
export function ed25519KeyProblem(key: Uint8Array): string | undefined {
  if (!(key instanceof Uint8Array) || key.length !== 32) return 'an Ed25519 public key is 32 bytes';
  // the subgroup check is a scalar multiplication (milliseconds in pure JS): each key's verdict is kept
  const hex = bytesToHex(key);
  const known = keyVerdicts.get(hex);
  if (known !== undefined) return known === '' ? undefined : known;
  const problem = keyProblemOf(key);
  if (keyVerdicts.size >= 1024) keyVerdicts.clear();
  keyVerdicts.set(hex, problem ?? '');
  return problem;
}

/** `ed25519KeyProblem`'s verdicts by key (hex): '' for an acceptable key. */
const keyVerdicts = new Map<string, string>();

function keyProblemOf(key: Uint8Array): string | undefined {
  let point: InstanceType<typeof Point>;
  try {
    point = Point.fromBytes(key, false);
  } catch {
    return 'not a canonical encoding of a point on Ed25519';
  }
  if (point.isSmallOrder()) return 'a point of small order (such a key would verify forged signatures)';
  if (!point.isTorsionFree()) return 'a point with a small-order component (not in the prime-order subgroup)';
  return undefined;
}

const decodedKeys = new WeakMap<Uint8Array, InstanceType<typeof Point> | null>();

function decodeKey(key: Uint8Array): InstanceType<typeof Point> | null {
  let point = decodedKeys.get(key);
  if (point === undefined) {
    point = ed25519KeyProblem(key) === undefined ? Point.fromBytes(key, false) : null;
    decodedKeys.set(key, point);
  }
  return point;
}

/** True when a key passes `ed25519KeyProblem` (cached per key array). */
export function acceptableEd25519Key(key: Uint8Array): boolean {
  return key instanceof Uint8Array && key.length === 32 && decodeKey(key) !== null;
}

function scalarLE(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/** True when a signature's R and S pass the byte-level checks of the rule (R canonical y, not small order; S < L). */
export function acceptableSignatureShape(signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  const r = signature.subarray(0, 32);
  return canonicalY(r) && !isSmallOrderEncoding(r) && scalarLE(signature.subarray(32)) < L;
}

/** Verifies under the rule above, in pure JavaScript. Never throws. */
export function verifyEd25519Strict(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || !(signature instanceof Uint8Array) || !(message instanceof Uint8Array)) return false;
  if (publicKey.length !== 32 || !acceptableSignatureShape(signature)) return false;
  const A = decodeKey(publicKey);
  if (A === null) return false;
  const rBytes = signature.subarray(0, 32);
  let R: InstanceType<typeof Point>;
  try {
    R = Point.fromBytes(rBytes, false);
  } catch {
    return false;
  }
  if (R.isSmallOrder()) return false;
  const s = scalarLE(signature.subarray(32));
  const k = scalarLE(sha512(concat(rBytes, publicKey, message))) % L;
  try {
    return Point.BASE.multiply(s, false).equals(R.add(A.multiply(k, false)));
  } catch {
    return false;
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
