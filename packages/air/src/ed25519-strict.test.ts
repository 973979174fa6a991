import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { ed25519KeyProblem, SMALL_ORDER_ENCODINGS, verifyEd25519Strict } from './ed25519-strict.js';
import { isAirError } from './errors.js';
import { type AdapterKey, adapterKeyProblem, EffectKernel, verifyReceiptSignature } from './kernel.js';
import { nodeSignatureVerifier } from './node/index.js';
import { ed25519PublicKey, signEd25519 } from './signing.js';
import { fromHex, toHex } from './test-support/vectors.js';

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;
const { Point } = ed;
type Pt = InstanceType<typeof Point>;

const le = (n: bigint, len = 32) => {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
};
const num = (bytes: Uint8Array) => bytes.reduceRight((n, b) => (n << 8n) | BigInt(b), 0n);
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const mod = (n: bigint) => ((n % L) + L) % L;
const challenge = (R: Uint8Array, A: Uint8Array, msg: Uint8Array) => mod(num(sha512(cat(R, A, msg))));

/** A secret scalar and its point, so signatures can be crafted by hand. */
function keyPair(seed: number): { a: bigint; A: Pt } {
  const a = mod(num(sha512(new Uint8Array([seed, 1, 2, 3]))));
  return { a, A: Point.BASE.multiply(a) };
}

/** Signs with nonce r, R = [r]B + extra, for a key point whose scalar is known (plus any torsion it carries). */
function craft(a: bigint, A: Uint8Array, msg: Uint8Array, r: bigint, extra: Pt = Point.ZERO): Uint8Array {
  const R = Point.BASE.multiply(r).add(extra).toBytes();
  return cat(R, le(mod(r + challenge(R, A, msg) * a)));
}

const torsion: Pt[] = SMALL_ORDER_ENCODINGS.map((h) => Point.fromBytes(fromHex(h)));
const order8 = torsion.find((t) => !t.double().double().is0())!;
const bothVerifiers = (key: AdapterKey, msg: Uint8Array, sig: Uint8Array) => [
  verifyReceiptSignature(key, msg, sig),
  nodeSignatureVerifier(key, msg, sig),
];

describe('Ed25519 under one rule: strict, cofactorless, no small order', () => {
  it('the small-order list is exactly the eight torsion points', () => {
    expect(new Set(SMALL_ORDER_ENCODINGS).size).toBe(8);
    for (const t of torsion) expect(t.isSmallOrder()).toBe(true);
    const generated = new Set(
      Array.from({ length: 8 }, (_, i) => toHex((i === 0 ? Point.ZERO : order8.multiply(BigInt(i), false)).toBytes())),
    );
    expect([...generated].sort()).toEqual([...SMALL_ORDER_ENCODINGS].sort());
  });

  it('refuses to register small-order, non-canonical or mixed-order keys, in every encoding of the identity', () => {
    const identityEncodings = ['01' + '00'.repeat(31), '01' + '00'.repeat(30) + '80', toHex(le(P + 1n))];
    for (const h of [...identityEncodings, ...SMALL_ORDER_ENCODINGS, toHex(le(P)), toHex(le(P + 2n)), 'ff'.repeat(32)]) {
      expect(ed25519KeyProblem(fromHex(h)), h).toBeDefined();
      expect(() => new EffectKernel({ adapters: { bad: { scheme: 'ed25519', key: fromHex(h) } } } as never)).toThrow(
        expect.objectContaining({ code: 'AIR_KEY_INVALID' }),
      );
    }
    const mixed = keyPair(7).A.add(order8).toBytes();
    expect(ed25519KeyProblem(mixed)).toMatch(/small-order component/);
    expect(adapterKeyProblem({ scheme: 'hmac-sha256', key: new Uint8Array(0) })).toMatch(/empty/);
    expect(adapterKeyProblem({ scheme: 'ed25519', key: ed25519PublicKey(new Uint8Array(32).fill(9)) })).toBeUndefined();
    try {
      new EffectKernel({ adapters: { bad: { scheme: 'ed25519', key: fromHex(identityEncodings[0]!) } } } as never);
    } catch (error) {
      expect(isAirError(error, 'AIR_KEY_INVALID')).toBe(true);
      expect(String((error as Error).message)).toMatch(/adapter "bad": a point of small order/);
    }
  });

  it('the identity-key forgery (R = identity, S = 0) verifies for no message with either verifier', () => {
    const msgs = [new Uint8Array(0), new TextEncoder().encode('any receipt at all')];
    for (const keyHex of ['01' + '00'.repeat(31), '01' + '00'.repeat(30) + '80', toHex(le(P + 1n))]) {
      for (const rHex of ['01' + '00'.repeat(31), '01' + '00'.repeat(30) + '80', toHex(le(P + 1n))]) {
        for (const msg of msgs)
          expect(bothVerifiers({ scheme: 'ed25519', key: fromHex(keyHex) }, msg, cat(fromHex(rHex), new Uint8Array(32)))).toEqual([
            false,
            false,
          ]);
      }
    }
  });

  it('a genuine key signing with an R that has a small-order component is refused by both', () => {
    const { a, A } = keyPair(1);
    const key = A.toBytes();
    const msg = new TextEncoder().encode('receipt');
    expect(bothVerifiers({ scheme: 'ed25519', key }, msg, craft(a, key, msg, 12345n))).toEqual([true, true]);
    for (const t of torsion.slice(1))
      expect(bothVerifiers({ scheme: 'ed25519', key }, msg, craft(a, key, msg, 12345n, t))).toEqual([false, false]);
    // The cofactored equation (what ZIP-215 and some libraries use) would have accepted them:
    expect(ed.verify(craft(a, key, msg, 12345n, order8), msg, key, { zip215: false })).toBe(true);
  });

  it('the two verifiers agree on crafted points: every torsion R, non-canonical R and keys, S at and past L', () => {
    const msg = new TextEncoder().encode('differential');
    const cases: { key: Uint8Array; sig: Uint8Array }[] = [];
    for (let seed = 0; seed < 6; seed++) {
      const { a, A } = keyPair(seed);
      const key = A.toBytes();
      const mixedKey = A.add(torsion[seed + 1]!).toBytes();
      const good = craft(a, key, msg, BigInt(seed + 99));
      cases.push({ key, sig: good });
      cases.push({ key, sig: signEd25519(new Uint8Array(32).fill(seed), msg) });
      cases.push({ key: ed25519PublicKey(new Uint8Array(32).fill(seed)), sig: signEd25519(new Uint8Array(32).fill(seed), msg) });
      const s = num(good.subarray(32));
      cases.push({ key, sig: cat(good.subarray(0, 32), le(s + L)) });
      cases.push({ key, sig: cat(good.subarray(0, 32), le(L)) });
      cases.push({ key, sig: cat(good.subarray(0, 32), le(0n)) });
      for (const t of torsion) {
        cases.push({ key, sig: craft(a, key, msg, BigInt(seed + 7), t) });
        cases.push({ key, sig: cat(t.toBytes(), good.subarray(32)) });
        cases.push({ key: mixedKey, sig: craft(a, mixedKey, msg, BigInt(seed + 3), t) });
        cases.push({ key: t.toBytes(), sig: cat(t.toBytes(), le(0n)) });
        cases.push({ key: t.toBytes(), sig: good });
      }
      // Non-canonical R: y + p where that still fits, and negative zero.
      const R = Point.fromBytes(good.subarray(0, 32));
      const y = R.toAffine().y;
      if (y + P < 2n ** 255n) cases.push({ key, sig: cat(le(y + P), good.subarray(32)) });
      cases.push({ key, sig: cat(le(P + 1n), le(0n)) });
      cases.push({ key: le(num(key) ^ (1n << 255n)), sig: good });
    }
    let disagreements = 0;
    let accepted = 0;
    for (const { key, sig } of cases) {
      const [pure, openssl] = bothVerifiers({ scheme: 'ed25519', key }, msg, sig);
      if (pure !== openssl) disagreements++;
      if (pure) accepted++;
      expect(pure, `key ${toHex(key)} sig ${toHex(sig)}`).toBe(openssl);
      expect(verifyEd25519Strict(key, msg, sig)).toBe(pure);
    }
    expect(disagreements).toBe(0);
    expect(accepted).toBe(18);
    expect(cases.length).toBeGreaterThan(250);
  });
});
