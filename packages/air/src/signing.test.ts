import { describe, expect, it } from 'vitest';
import { ed25519PublicKey, equalBytes, hmacSha256, signEd25519, verifyEd25519 } from './signing.js';
import { fromHex, readVectors, toHex } from './test-support/vectors.js';

interface Wycheproof {
  testGroups: {
    publicKey: { pk: string };
    tests: { tcId: number; msg: string; sig: string; result: 'valid' | 'invalid'; comment: string }[];
  }[];
}

describe('Ed25519', () => {
  const wycheproof = readVectors<Wycheproof>('wycheproof-ed25519.json');
  const cases = wycheproof.testGroups.flatMap((g) => g.tests.map((t) => ({ ...t, pk: g.publicKey.pk })));

  it('has all 151 Wycheproof cases', () => expect(cases.length).toBe(151));

  it.each(cases.map((c) => [c.tcId, c.comment, c] as const))('Wycheproof %i %s', (_id, _comment, c) => {
    expect(verifyEd25519(fromHex(c.pk), fromHex(c.msg), fromHex(c.sig))).toBe(c.result === 'valid');
  });

  const rfc = readVectors<{ name: string; sk: string; pk: string; msg: string; sig: string }[]>('rfc8032-ed25519.json');
  it.each(rfc.map((v) => [v.name, v] as const))('RFC 8032 %s: key, signature, verification', (_name, v) => {
    expect(toHex(ed25519PublicKey(fromHex(v.sk)))).toBe(v.pk);
    expect(toHex(signEd25519(fromHex(v.sk), fromHex(v.msg)))).toBe(v.sig);
    expect(verifyEd25519(fromHex(v.pk), fromHex(v.msg), fromHex(v.sig))).toBe(true);
    const tampered = fromHex(v.msg + '00');
    expect(verifyEd25519(fromHex(v.pk), tampered, fromHex(v.sig))).toBe(false);
  });

  it('malformed keys and signatures are simply invalid', () => {
    expect(verifyEd25519(new Uint8Array(31), new Uint8Array(0), new Uint8Array(64))).toBe(false);
    expect(verifyEd25519(new Uint8Array(32).fill(0xff), new Uint8Array(0), new Uint8Array(64).fill(0xff))).toBe(false);
  });
});

describe('HMAC-SHA-256', () => {
  it('matches RFC 4231 test case 2', () => {
    const mac = hmacSha256(new TextEncoder().encode('Jefe'), new TextEncoder().encode('what do ya want for nothing?'));
    expect(toHex(mac)).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    expect(equalBytes(mac, mac.slice())).toBe(true);
    expect(equalBytes(mac, new Uint8Array(32))).toBe(false);
  });
});

describe('the OpenSSL verifier of @cairn/air/node agrees with every Wycheproof case', () => {
  it('151 of 151', async () => {
    const { nodeSignatureVerifier } = await import('./node/index.js');
    const wycheproof = readVectors<Wycheproof>('wycheproof-ed25519.json');
    let agreed = 0;
    for (const group of wycheproof.testGroups) {
      for (const t of group.tests) {
        const valid = nodeSignatureVerifier({ scheme: 'ed25519', key: fromHex(group.publicKey.pk) }, fromHex(t.msg), fromHex(t.sig));
        if (valid === (t.result === 'valid')) agreed++;
      }
    }
    expect(agreed).toBe(151);
    const key = new Uint8Array(32).fill(1);
    const msg = new Uint8Array([1, 2, 3]);
    expect(nodeSignatureVerifier({ scheme: 'hmac-sha256', key }, msg, hmacSha256(key, msg))).toBe(true);
    expect(nodeSignatureVerifier({ scheme: 'hmac-sha256', key }, msg, new Uint8Array(32))).toBe(false);
  });
});

describe('the OpenSSL signer of @cairn/air/node', () => {
  it('gives the RFC 8032 keys and signatures, and the pure signer’s on random keys and messages', async () => {
    const { nodeEd25519PublicKey, nodeSignEd25519 } = await import('./node/index.js');
    const rfc = readVectors<{ sk: string; pk: string; msg: string; sig: string }[]>('rfc8032-ed25519.json');
    for (const v of rfc) {
      expect(toHex(nodeEd25519PublicKey(fromHex(v.sk)))).toBe(v.pk);
      expect(toHex(nodeSignEd25519(fromHex(v.sk), fromHex(v.msg)))).toBe(v.sig);
    }
    const { randomBytes } = await import('node:crypto');
    for (let n = 0; n < 20; n++) {
      const secret = new Uint8Array(randomBytes(32));
      const message = new Uint8Array(randomBytes(n * 13));
      expect(toHex(nodeEd25519PublicKey(secret))).toBe(toHex(ed25519PublicKey(secret)));
      expect(toHex(nodeSignEd25519(secret, message))).toBe(toHex(signEd25519(secret, message)));
    }
    expect(() => nodeSignEd25519(new Uint8Array(31), new Uint8Array(1))).toThrow(/32 bytes/);
  });
});
