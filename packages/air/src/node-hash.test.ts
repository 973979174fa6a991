import { createHash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashBytes, useNativeSha256 } from './node-hash.js';
import './node/index.js';

describe('content hashes with a native SHA-256', () => {
  it('are the pure implementation’s hashes, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (bytes) => {
        expect(hashBytes(bytes)).toBe(`sha256:${bytesToHex(sha256(bytes))}`);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses an implementation that is not SHA-256, and keeps the one it had', () => {
    expect(useNativeSha256((bytes) => createHash('sha512').update(bytes).digest('hex').slice(0, 64))).toBe(false);
    expect(useNativeSha256(() => '0'.repeat(64))).toBe(false);
    expect(hashBytes(Uint8Array.of(0x61, 0x62, 0x63))).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('installs one that is', () => {
    expect(useNativeSha256((bytes) => createHash('sha256').update(bytes).digest('hex'))).toBe(true);
  });
});
