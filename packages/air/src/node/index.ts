import * as crypto from 'node:crypto';
import { createHash, createHmac, createPrivateKey, createPublicKey, type KeyObject, sign, timingSafeEqual, verify } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type BlobAdapter, type EffectAdapter, signReceipt } from '../adapters.js';
import type { CborValue } from '../cbor-value.js';
import type { AirResult } from '../diagnostic.js';
import { acceptableEd25519Key, acceptableSignatureShape } from '../ed25519-strict.js';
import type { EffectIntent, Receipt, SignatureVerifier } from '../kernel.js';
import { type AirFiles, loadManifestDir, writeManifestStore } from '../manifest-store.js';
import type { Hash } from '../node-hash.js';
import { useNativeSha256 } from '../node-hash.js';
import type { ValidatedManifest } from '../validate.js';

/** Node's one-shot digest (Node 20.12 and later): no hash object made and dropped for each small input. */
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'hex') => string }).hash;

/** Content hashes on Node use OpenSSL's SHA-256 (checked against the pure one before it is used). */
useNativeSha256(
  typeof oneShot === 'function' ? (bytes) => oneShot('sha256', bytes, 'hex') : (bytes) => createHash('sha256').update(bytes).digest('hex'),
);

/** `AirFiles` on the local disk; writes go through a temp file and a rename. */
export const nodeAirFiles: AirFiles = {
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return undefined;
    }
  },
  isDirectory(path) {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  },
  readText(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  writeBytes(path, bytes) {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, bytes);
    renameSync(temp, path);
  },
  join,
};

/** Loads and validates the manifest directory `dir` from disk. */
export function loadManifestDirectory(dir: string): AirResult<ValidatedManifest> {
  return loadManifestDir(nodeAirFiles, dir);
}

/** Writes a loaded manifest's nodes under `dir/.store/nodes/sha256/` and `dir/manifest.air.cbor`. */
export function writeManifestDirectoryStore(dir: string, loaded: ValidatedManifest): string[] {
  return writeManifestStore(nodeAirFiles, dir, loaded);
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const publicKeys = new WeakMap<Uint8Array, KeyObject | null>();

/**
 * Receipt signatures checked with OpenSSL (node:crypto), about fifteen times faster than the pure verifier and
 * under the same rule: OpenSSL's cofactorless equation and S < L, plus AIR's checks that it does not make
 * itself — the key is canonical, torsion-free and not of small order; R is canonical and not of small order.
 * Malformed keys or signatures are invalid, never thrown.
 */
export const nodeSignatureVerifier: SignatureVerifier = (key, message, signature) => {
  if (key.scheme === 'hmac-sha256') {
    const mac = createHmac('sha256', key.key).update(message).digest();
    return mac.length === signature.length && timingSafeEqual(mac, signature);
  }
  if (key.key.length !== 32 || !acceptableSignatureShape(signature)) return false;
  let keyObject = publicKeys.get(key.key);
  if (keyObject === undefined) {
    keyObject = null;
    if (acceptableEd25519Key(key.key)) {
      try {
        keyObject = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, key.key]), format: 'der', type: 'spki' });
      } catch {
        keyObject = null;
      }
    }
    publicKeys.set(key.key, keyObject);
  }
  if (keyObject === null) return false;
  try {
    return verify(null, message, keyObject, signature);
  } catch {
    return false;
  }
};

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const secretKeys = new WeakMap<Uint8Array, KeyObject>();

function privateKeyOf(secretKey: Uint8Array): KeyObject {
  let keyObject = secretKeys.get(secretKey);
  if (keyObject === undefined) {
    if (secretKey.length !== 32) throw new RangeError(`an Ed25519 secret key is 32 bytes (got ${secretKey.length})`);
    keyObject = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, secretKey]), format: 'der', type: 'pkcs8' });
    secretKeys.set(secretKey, keyObject);
  }
  return keyObject;
}

/**
 * Signs with an Ed25519 secret key (32 bytes) through OpenSSL: the same signature as `signEd25519` (RFC 8032
 * signing is deterministic), a hundred times faster; the key object is made once per key array.
 */
export function nodeSignEd25519(secretKey: Uint8Array, message: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, message, privateKeyOf(secretKey)));
}

/** The Ed25519 public key of a secret key, through OpenSSL. */
export function nodeEd25519PublicKey(secretKey: Uint8Array): Uint8Array {
  const spki = createPublicKey(privateKeyOf(secretKey)).export({ format: 'der', type: 'spki' });
  return new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX.length));
}

/**
 * `http.request` over real HTTP (the global fetch): the request body comes from the blob store by
 * `body_ref`, the response body goes into it; the receipt carries status, headers, body_ref and timings.
 */
export class HttpAdapter implements EffectAdapter {
  readonly id: string;
  readonly kinds = ['http.request'] as const;
  private readonly secret: Uint8Array;
  private readonly blobs: BlobAdapter;
  private readonly nowNs: () => bigint;

  constructor(id: string, secretKey: Uint8Array, blobs: BlobAdapter, nowNs: () => bigint = () => process.hrtime.bigint()) {
    this.id = id;
    this.secret = secretKey;
    this.blobs = blobs;
    this.nowNs = nowNs;
  }

  async execute(intent: EffectIntent, deliver: (receipt: Receipt) => void): Promise<void> {
    const p = intent.params as Record<string, unknown>;
    const start = this.nowNs();
    const sign = (status: 'ok' | 'error', receipt: CborValue) =>
      deliver(signReceipt(this.secret, { intentHash: intent.intentHash, adapterId: this.id, status, receipt }));
    try {
      const bodyRef = p.body_ref instanceof Uint8Array ? `sha256:${Buffer.from(p.body_ref).toString('hex')}` : undefined;
      const body = bodyRef === undefined ? undefined : this.blobs.read(bodyRef as Hash);
      const response = await fetch(String(p.url), {
        method: String(p.method),
        headers: Object.fromEntries(Object.entries((p.headers ?? {}) as Record<string, string>)),
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
      const bytes = new Uint8Array(await response.arrayBuffer());
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => (headers[key] = value));
      sign('ok', {
        status: response.status,
        headers,
        body_ref: this.blobs.store(bytes),
        timings: { start_ns: start, end_ns: this.nowNs() },
        adapter_id: this.id,
      });
    } catch (error) {
      sign('error', {
        error: String((error as Error).message ?? error),
        timings: { start_ns: start, end_ns: this.nowNs() },
        adapter_id: this.id,
      });
    }
  }
}
