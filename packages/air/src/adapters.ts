import type { CborValue } from './cbor-value.js';
import { type EffectIntent, type Receipt, receiptSigningBytes } from './kernel.js';
import { type Hash, hashBytes } from './node-hash.js';
import { signEd25519 } from './signing.js';

/** Something that performs effects and signs what happened. The kernel never calls adapters; hosts do. */
export interface EffectAdapter {
  readonly id: string;
  readonly kinds: readonly string[];
  /** Performs an admitted intent; the receipt arrives through `deliver` (now, or later for timers). */
  execute(intent: EffectIntent, deliver: (receipt: Receipt) => void): void | Promise<void>;
}

/** Signs a receipt body with an adapter's Ed25519 secret key. */
export function signReceipt(secretKey: Uint8Array, body: Omit<Receipt, 'sig'>): Receipt {
  return { ...body, sig: signEd25519(secretKey, receiptSigningBytes(body)) };
}

const params = (intent: EffectIntent) => intent.params as Readonly<Record<string, CborValue>>;
const hexOf = (bytes: CborValue): Hash => `sha256:${[...(bytes as Uint8Array)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;

/** Content-addressed blobs in memory: `blob.put` files a stored blob under a namespace, `blob.get` finds it by its hash. */
export class BlobAdapter implements EffectAdapter {
  readonly id: string;
  readonly kinds = ['blob.put', 'blob.get'] as const;
  private readonly secret: Uint8Array;
  private readonly content = new Map<Hash, Uint8Array>();
  private readonly namespaces = new Map<string, Set<Hash>>();

  constructor(id: string, secretKey: Uint8Array) {
    this.id = id;
    this.secret = secretKey;
  }

  /** Adds bytes to the content store; returns their hash (what a `blob_ref` names). */
  store(bytes: Uint8Array): Hash {
    const hash = hashBytes(bytes);
    this.content.set(hash, bytes.slice());
    return hash;
  }

  read(hash: Hash): Uint8Array | undefined {
    return this.content.get(hash)?.slice();
  }

  size(hash: Hash): bigint | undefined {
    const bytes = this.content.get(hash);
    return bytes === undefined ? undefined : BigInt(bytes.length);
  }

  execute(intent: EffectIntent, deliver: (receipt: Receipt) => void): void {
    const p = params(intent);
    const namespace = String(p.namespace);
    const ref = intent.kind === 'blob.put' ? hexOf(p.blob_ref!) : (String(p.key) as Hash);
    const bytes = this.content.get(ref);
    const known =
      intent.kind === 'blob.put' ? bytes !== undefined : this.namespaces.get(namespace)?.has(ref) === true && bytes !== undefined;
    if (known && intent.kind === 'blob.put') {
      const set = this.namespaces.get(namespace) ?? new Set<Hash>();
      set.add(ref);
      this.namespaces.set(namespace, set);
    }
    const receipt: CborValue = known ? { blob_ref: ref, size: bytes!.length } : { error: `no blob ${ref} in namespace "${namespace}"` };
    deliver(signReceipt(this.secret, { intentHash: intent.intentHash, adapterId: this.id, status: known ? 'ok' : 'error', receipt }));
  }
}

/** Timers on an injected clock: `timer.set` fires when `advanceTo` passes its deadline. */
export class TimerAdapter implements EffectAdapter {
  readonly id: string;
  readonly kinds = ['timer.set'] as const;
  private readonly secret: Uint8Array;
  private now: bigint;
  private readonly due: { at: bigint; seq: number; intent: EffectIntent; deliver: (receipt: Receipt) => void }[] = [];
  private seq = 0;

  constructor(id: string, secretKey: Uint8Array, startNs: bigint) {
    this.id = id;
    this.secret = secretKey;
    this.now = startNs;
  }

  execute(intent: EffectIntent, deliver: (receipt: Receipt) => void): void {
    const at = BigInt(params(intent).deliver_at_ns as number | bigint);
    this.due.push({ at, seq: this.seq++, intent, deliver });
    this.due.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.seq - b.seq));
    this.advanceTo(this.now);
  }

  /** Moves the clock forward, firing every timer due by then, earliest first. */
  advanceTo(ns: bigint): void {
    if (ns > this.now) this.now = ns;
    while (this.due.length > 0 && this.due[0]!.at <= this.now) {
      const timer = this.due.shift()!;
      const key = params(timer.intent).key;
      const receipt: Record<string, CborValue> = { delivered_at_ns: this.now };
      if (key !== undefined && key !== null) receipt.key = key;
      timer.deliver(signReceipt(this.secret, { intentHash: timer.intent.intentHash, adapterId: this.id, status: 'ok', receipt }));
    }
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.due.length;
  }
}
