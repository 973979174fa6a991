import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ed25519KeyProblem } from '@cairn/air';
import { nodeEd25519PublicKey, nodeSignatureVerifier, nodeSignEd25519 } from '@cairn/air/node';
import { CairnError } from '@cairn/api';

/** An Ed25519 key pair kept in a file (mode 0600): the coordinator's token key, or a worker's enrolled key. */
export interface SigningKey {
  secret: Uint8Array;
  publicKey: Uint8Array;
  /** The public key as text (`ed25519:<hex>`), as a coordinator lists it. */
  publicText: string;
}

/** Loads the key at `path`, creating it on first use. */
export function loadSigningKey(path: string): SigningKey {
  let secret: Uint8Array;
  try {
    const bytes = readFileSync(path);
    if (bytes.length !== 32)
      throw new CairnError('CAIRN_CORRUPT', `the key ${path} is not 32 bytes`, {
        hint: 'restore it from a backup, or remove it to make a new one',
      });
    secret = new Uint8Array(bytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    secret = new Uint8Array(randomBytes(32));
    try {
      writeFileSync(path, secret, { flag: 'wx', mode: 0o600 });
      chmodSync(path, 0o600);
    } catch (written) {
      if ((written as NodeJS.ErrnoException).code === 'EEXIST') return loadSigningKey(path);
      throw written;
    }
  }
  const publicKey = nodeEd25519PublicKey(secret);
  return { secret, publicKey, publicText: publicKeyText(publicKey) };
}

/** `ed25519:<hex>` of a public key. */
export function publicKeyText(publicKey: Uint8Array): string {
  return `ed25519:${Buffer.from(publicKey).toString('hex')}`;
}

/** The public key in `text` (`ed25519:<hex>`), or the reason it is not one. */
export function parsePublicKey(text: string): { ok: true; key: Uint8Array } | { ok: false; reason: string } {
  const match = /^ed25519:([0-9a-f]{64})$/.exec(text.trim());
  if (match === null)
    return { ok: false, reason: `not an Ed25519 public key (ed25519:<64 hex digits>): ${JSON.stringify(text.slice(0, 80))}` };
  const key = new Uint8Array(Buffer.from(match[1]!, 'hex'));
  const problem = ed25519KeyProblem(key);
  return problem === undefined ? { ok: true, key } : { ok: false, reason: problem };
}

/** Signs `text` (UTF-8) with `secret`; the signature as hex. */
export function signText(secret: Uint8Array, text: string): string {
  return Buffer.from(nodeSignEd25519(secret, new TextEncoder().encode(text))).toString('hex');
}

/** Signatures already verified (an upload's is checked as it arrives and again before its result is read). */
const verified = new Set<string>();

/** True when `signature` (hex) is `publicKey`'s signature of `text`. */
export function verifyText(publicKey: Uint8Array, text: string, signature: string): boolean {
  if (!/^[0-9a-f]{128}$/.test(signature)) return false;
  const seen = `${Buffer.from(publicKey).toString('hex')}\n${signature}\n${text}`;
  if (verified.has(seen)) return true;
  let ok: boolean;
  try {
    ok = nodeSignatureVerifier(
      { scheme: 'ed25519', key: publicKey },
      new TextEncoder().encode(text),
      new Uint8Array(Buffer.from(signature, 'hex')),
    );
  } catch {
    return false;
  }
  if (!ok) return false;
  if (verified.size >= 4096) verified.clear();
  verified.add(seen);
  return true;
}
