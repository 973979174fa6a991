import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { receiptSigningBytes, type AdapterKey, type Receipt } from '@cairn/air';
import { CairnError } from '../api/errors.js';
import { CHECK_ADAPTER, FS_ADAPTER, LLM_ADAPTER } from '../workspace/journal-spend.js';

/**
 * Signs receipts with HMAC-SHA-256 under the project's receipt key. The adapters and the kernel share one
 * process, so a public-key scheme would buy nothing against someone who can read the key, and HMAC keeps a
 * governed call cheap; the key stays in `.agentfs/receipt.key` (mode 0600) so a later process can verify.
 */
export class ReceiptSigner {
  readonly key: Uint8Array;

  constructor(key: Uint8Array) {
    this.key = key;
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
    const key: AdapterKey = { scheme: 'hmac-sha256', key: this.key };
    return { [FS_ADAPTER]: key, [LLM_ADAPTER]: key, [CHECK_ADAPTER]: key };
  }

  sign(body: Omit<Receipt, 'sig'>): Receipt {
    const sig = createHmac('sha256', this.key).update(receiptSigningBytes(body)).digest();
    return { ...body, sig: new Uint8Array(sig) };
  }
}
