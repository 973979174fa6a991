import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { type AdapterKey, type Receipt, receiptSigningBytes } from '@cairn/air';
import { nodeEd25519PublicKey, nodeSignEd25519 } from '@cairn/air/node';
import { CairnError } from '@cairn/api';
import { CHECK_ADAPTER, FS_ADAPTER, LLM_ADAPTER } from '@cairn/workspace';

/**
 * Signs receipts with HMAC-SHA-256 under the project's receipt key. The adapters and the kernel share one
 * process, so a public-key scheme would buy nothing against someone who can read the key, and HMAC keeps a
 * governed call cheap; the key stays in `.agentfs/receipt.key` (mode 0600) so a later process can verify.
 */
export class ReceiptSigner {
  readonly key: Uint8Array;
  /** `hmac-sha256` for a project's own runs; `ed25519` for a worker's, whose public key anyone can verify with. */
  readonly scheme: 'hmac-sha256' | 'ed25519';
  private readonly publicKey: Uint8Array | undefined;
  private readonly secret: Uint8Array | undefined;

  constructor(key: Uint8Array, scheme: 'hmac-sha256' | 'ed25519' = 'hmac-sha256', secret?: Uint8Array) {
    this.key = key;
    this.scheme = scheme;
    this.secret = scheme === 'ed25519' ? secret : key;
    this.publicKey = scheme === 'ed25519' ? key : undefined;
  }

  /** A signer with a worker's Ed25519 secret key: receipts anyone holding its public key can verify. */
  static ed25519(secret: Uint8Array): ReceiptSigner {
    return new ReceiptSigner(nodeEd25519PublicKey(secret), 'ed25519', secret);
  }

  /** Verifies (in a replay) receipts a worker signed with the secret of `publicKey`; it cannot sign. */
  static verifying(publicKey: Uint8Array): ReceiptSigner {
    return new ReceiptSigner(publicKey, 'ed25519');
  }

  /** Loads the project's key, creating it on first use. */
  static forProject(keyPath: string): ReceiptSigner {
    try {
      const key = readFileSync(keyPath);
      if (key.length !== 32)
        throw new CairnError('CAIRN_CORRUPT', `the receipt key ${keyPath} is not 32 bytes`, {
          hint: 'it signs every agent journal of this project; restore it from a backup',
        });
      return new ReceiptSigner(new Uint8Array(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const key = randomBytes(32);
    try {
      writeFileSync(keyPath, key, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return ReceiptSigner.forProject(keyPath);
      throw error;
    }
    chmodSync(keyPath, 0o600);
    return new ReceiptSigner(new Uint8Array(key));
  }

  /** The keys the kernel verifies receipts with, by adapter id. */
  adapterKeys(): Record<string, AdapterKey> {
    const key: AdapterKey =
      this.publicKey === undefined ? { scheme: 'hmac-sha256', key: this.key } : { scheme: 'ed25519', key: this.publicKey };
    return { [FS_ADAPTER]: key, [LLM_ADAPTER]: key, [CHECK_ADAPTER]: key };
  }

  sign(body: Omit<Receipt, 'sig'>): Receipt {
    if (this.secret === undefined) throw new CairnError('CAIRN_INTERNAL', 'this signer only verifies receipts');
    if (this.scheme === 'ed25519') return { ...body, sig: nodeSignEd25519(this.secret, receiptSigningBytes(body)) };
    const sig = createHmac('sha256', this.secret).update(receiptSigningBytes(body)).digest();
    return { ...body, sig: new Uint8Array(sig) };
  }
}
