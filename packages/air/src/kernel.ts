import { EFFECT_CATALOG } from './builtins.js';
import { encodeCanonical, tryEncodePart } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { withKnownEncodings } from './cbor-writer.js';
import { ed25519KeyProblem } from './ed25519-strict.js';
import { AirError } from './errors.js';
import { checkGrantConstraints, parseHttpUrl } from './grant-constraints.js';
import type { Journal } from './journal.js';
import { type Hash, hashBytes } from './node-hash.js';
import type { CapGrantJson, DefPolicyNode } from './nodes.js';
import { decidePolicy, type EffectOrigin, type PolicyDecision } from './policy.js';
import { equalBytes, hmacSha256, type SignatureScheme, verifyEd25519 } from './signing.js';
import { checkValue, encodeTypedValue } from './values.js';
import type { World } from './world.js';

/** Where a receipt's payload sits in its journal entry: entry, body, `submitted`, payload. */
const RECEIPT_DEPTH_IN_ENTRY = 3;

/** A request to perform an effect. */
export interface EffectRequest {
  kind: string;
  params: Readonly<Record<string, unknown>>;
  cap: string;
  /** 32 bytes chosen by the origin; the same request retried keeps its key. */
  idempotencyKey: Uint8Array;
  origin: EffectOrigin;
  /** The plan instance or agent run the effect belongs to (journaled as `instance_id`; not part of the intent). */
  instanceId?: string;
}

/** An effect admitted by the kernel. */
export interface EffectIntent {
  kind: string;
  params: CborValue;
  cap: string;
  idempotencyKey: Uint8Array;
  intentHash: Hash;
  origin: EffectOrigin;
}

/** Why an effect was refused, at which stage of enforcement. */
export interface Denial {
  stage: 'unknown-kind' | 'params' | 'grant' | 'expired' | 'exhausted' | 'cap-type' | 'constraint' | 'budget' | 'policy';
  reason: string;
  policy?: PolicyDecision;
}

/** The result an adapter reports, signed. */
export interface Receipt {
  intentHash: Hash;
  adapterId: string;
  status: 'ok' | 'error';
  receipt: CborValue;
  /** Cost in cents, when the effect had one. */
  cost?: number;
  sig: Uint8Array;
}

/** A registered adapter key. */
export interface AdapterKey {
  scheme: SignatureScheme;
  /** Ed25519 public key, or the HMAC key. */
  key: Uint8Array;
}

/** A grant as the kernel keeps it: parameters, expiry and what is left of its budget. */
interface GrantState {
  grant: CapGrantJson;
  capType: string;
  remaining: { tokens?: bigint; bytes?: bigint; cents?: bigint; ms?: bigint };
  exhausted: boolean;
}

/** The kernel's options. */
export interface KernelOptions {
  world: World;
  grants: readonly CapGrantJson[];
  policy?: DefPolicyNode;
  journal: Journal;
  adapters: Readonly<Record<string, AdapterKey>>;
  /** Nanoseconds since the epoch, for grant expiry (injected: replays must see the same time). */
  nowNs: () => bigint;
  /** Size of a blob by hash, when the content store knows it (for blob.put budget checks). */
  blobSize?: (hash: Hash) => bigint | undefined;
  /** Signature verification; defaults to the pure `verifyReceiptSignature`. `@cairn/air/node` has a faster one on OpenSSL. */
  verifySignature?: SignatureVerifier;
}

/** Checks a receipt signature for an adapter key. */
export type SignatureVerifier = (key: AdapterKey, message: Uint8Array, signature: Uint8Array) => boolean;

/** Pure verification: strict Ed25519 (`zip215: false`) or HMAC-SHA-256 in constant time. */
export const verifyReceiptSignature: SignatureVerifier = (key, message, signature) =>
  key.scheme === 'ed25519' ? verifyEd25519(key.key, message, signature) : equalBytes(hmacSha256(key.key, message), signature);

/**
 * The request as the kernel checks and admits it: an `http.request` URL in the WHATWG parser's normal form
 * (what `fetch` would go to), so the intent, its hash and the adapter all see the URL that was checked.
 */
function normaliseRequest(request: EffectRequest): EffectRequest {
  if (request.kind !== 'http.request' || request.params === null || typeof request.params !== 'object') return request;
  const parsed = parseHttpUrl(request.params.url);
  return parsed.ok && parsed.href !== request.params.url ? { ...request, params: { ...request.params, url: parsed.href } } : request;
}

/** Why an adapter key cannot be registered: a weak Ed25519 key (small order, non-canonical, torsion) or an empty HMAC key. */
export function adapterKeyProblem(key: AdapterKey): string | undefined {
  if (key === null || typeof key !== 'object' || !(key.key instanceof Uint8Array)) return 'the key must be bytes';
  if (key.scheme === 'ed25519') return ed25519KeyProblem(key.key);
  if (key.scheme === 'hmac-sha256') return key.key.length === 0 ? 'an HMAC key may not be empty' : undefined;
  return `unknown signature scheme "${String((key as { scheme?: unknown }).scheme)}"`;
}

/** The canonical bytes an adapter signs: the receipt without its signature. */
export function receiptSigningBytes(receipt: Omit<Receipt, 'sig'>): Uint8Array {
  const body: Record<string, CborValue> = {
    intent_hash: receipt.intentHash,
    adapter_id: receipt.adapterId,
    status: receipt.status,
    receipt: receipt.receipt,
  };
  if (receipt.cost !== undefined) body.cost = receipt.cost;
  return encodeCanonical(body);
}

/** A receipt as the journal keeps it (everything, the signature too), so a replay can submit it again. */
export function receiptRecord(receipt: Receipt): CborValue {
  const record: Record<string, CborValue> = {
    intent_hash: String(receipt.intentHash),
    adapter_id: String(receipt.adapterId),
    status: String(receipt.status),
    receipt: receipt.receipt,
    sig: receipt.sig instanceof Uint8Array ? receipt.sig : new Uint8Array(0),
  };
  if (receipt.cost !== undefined) record.cost = receipt.cost;
  return record;
}

/** Reads a receipt back from its journal record. */
export function receiptFromRecord(record: CborValue): Receipt | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record) || record instanceof Uint8Array || record instanceof Map)
    return undefined;
  const r = record as Record<string, CborValue>;
  if (
    typeof r.intent_hash !== 'string' ||
    typeof r.adapter_id !== 'string' ||
    (r.status !== 'ok' && r.status !== 'error') ||
    !(r.sig instanceof Uint8Array) ||
    r.receipt === undefined
  )
    return undefined;
  const receipt: Receipt = { intentHash: r.intent_hash as Hash, adapterId: r.adapter_id, status: r.status, receipt: r.receipt, sig: r.sig };
  if (typeof r.cost === 'number') receipt.cost = r.cost;
  return receipt;
}

/** `intent_hash` = SHA-256 of the canonical CBOR of `[kind, params, cap, idempotency_key]`. */
export function intentHash(kind: string, params: CborValue, cap: string, idempotencyKey: Uint8Array): Hash {
  return hashBytes(encodeCanonical([kind, params, cap, idempotencyKey]));
}

/** The dimensions a grant's budget may have: model tokens, bytes, cents, and wall time (ms, spent by checks). */
const BUDGET_DIMENSIONS = ['tokens', 'bytes', 'cents', 'ms'] as const;

/**
 * The effect gate of AIR v1 §9–10: checks, in order, that the kind is known and its parameters fit its
 * schema, the grant exists, has not expired or run out, is of the kind's capability type, admits the
 * parameters, and can afford the effect; then asks the policy (first match wins, default deny). Every
 * decision is journaled. Receipts are checked against the adapter's registered key, bound to an admitted
 * intent and (when `ok`) checked against the kind's receipt schema before they settle the grant's budget.
 */
export class EffectKernel {
  private readonly options: KernelOptions;
  private readonly grants = new Map<string, GrantState>();
  private readonly pending = new Map<string, EffectIntent>();
  private readonly done = new Set<string>();

  constructor(options: KernelOptions) {
    for (const [id, key] of Object.entries(options.adapters)) {
      const problem = adapterKeyProblem(key);
      if (problem !== undefined) throw new AirError('AIR_KEY_INVALID', `adapter "${id}": ${problem}`);
    }
    this.options = options;
    for (const grant of options.grants) {
      const cap = options.world.get('defcap', grant.cap);
      const budget = grant.budget ?? {};
      const remaining: GrantState['remaining'] = {};
      for (const dim of BUDGET_DIMENSIONS) if (budget[dim] !== undefined) remaining[dim] = BigInt(budget[dim]!);
      this.grants.set(grant.name, { grant, capType: cap?.node.cap_type ?? '', remaining, exhausted: false });
    }
  }

  /** Admits or denies an effect; the outcome is journaled either way. */
  enqueue(request: EffectRequest): { ok: true; intent: EffectIntent } | { ok: false; denial: Denial } {
    const { journal } = this.options;
    const deny = (denial: Denial, hash?: Hash) => {
      const params = request.params as Record<string, unknown>;
      const subject = typeof params?.path === 'string' ? params.path : typeof params?.url === 'string' ? params.url : null;
      journal.append('EffectDenied', {
        kind: request.kind,
        cap: request.cap,
        origin_kind: request.origin.kind,
        origin_name: request.origin.name,
        stage: denial.stage,
        reason: denial.reason,
        intent_hash: hash ?? null,
        subject,
      });
      return { ok: false as const, denial };
    };
    const spec = EFFECT_CATALOG[request.kind];
    if (spec === undefined) return deny({ stage: 'unknown-kind', reason: `unknown effect kind "${request.kind}"` });
    const schema = this.options.world.schema(spec.params, '', []);
    request = normaliseRequest(request);
    const typed = schema === undefined ? undefined : encodeTypedValue(request.params, schema.type, '/params');
    if (typed === undefined || !typed.ok)
      return deny({
        stage: 'params',
        reason: typed === undefined ? 'no parameter schema' : typed.diagnostics.map((d) => `${d.path}: ${d.message}`).join('; '),
      });
    const hash = intentHash(request.kind, typed.value, request.cap, request.idempotencyKey);
    const state = this.grants.get(request.cap);
    if (state === undefined) return deny({ stage: 'grant', reason: `no grant named "${request.cap}"` }, hash);
    if (state.grant.expiry_ns !== undefined && this.options.nowNs() >= BigInt(state.grant.expiry_ns))
      return deny({ stage: 'expired', reason: `grant "${request.cap}" has expired` }, hash);
    if (state.exhausted) return deny({ stage: 'exhausted', reason: `grant "${request.cap}" has used up its budget` }, hash);
    if (state.capType !== spec.capType)
      return deny(
        {
          stage: 'cap-type',
          reason: `grant "${request.cap}" is a ${state.capType || 'unknown'} capability; ${request.kind} needs ${spec.capType}`,
        },
        hash,
      );
    const misfit = checkGrantConstraints(
      request.kind,
      request.params as Record<string, unknown>,
      state.grant.params as Record<string, unknown>,
    );
    if (misfit !== undefined) return deny({ stage: 'constraint', reason: misfit }, hash);
    const unaffordable = this.precheckBudget(request, state);
    if (unaffordable !== undefined) return deny({ stage: 'budget', reason: unaffordable }, hash);
    const decision = decidePolicy(this.options.policy, {
      kind: request.kind,
      capName: request.cap,
      params: request.params,
      origin: request.origin,
    });
    journal.append('PolicyDecisionRecorded', {
      intent_hash: hash,
      policy_name: decision.policyName,
      rule_index: decision.ruleIndex,
      decision: decision.decision,
    });
    if (decision.decision === 'deny')
      return {
        ok: false,
        denial: {
          stage: 'policy',
          reason: decision.ruleIndex < 0 ? 'no policy rule allows it (default deny)' : `policy rule ${decision.ruleIndex} denies it`,
          policy: decision,
        },
      };
    const intent: EffectIntent = {
      kind: request.kind,
      params: typed.value,
      cap: request.cap,
      idempotencyKey: request.idempotencyKey,
      intentHash: hash,
      origin: request.origin,
    };
    this.pending.set(hash, intent);
    journal.append('EffectQueued', {
      instance_id: request.instanceId ?? null,
      intent_hash: hash,
      kind: request.kind,
      cap: request.cap,
      origin_kind: request.origin.kind,
      origin_name: request.origin.name,
    });
    return { ok: true, intent };
  }

  private precheckBudget(request: EffectRequest, state: GrantState): string | undefined {
    const p = request.params;
    if (
      request.kind === 'llm.generate' &&
      state.remaining.tokens !== undefined &&
      BigInt(Number(p.max_tokens) || 0) > state.remaining.tokens
    ) {
      return `max_tokens ${String(p.max_tokens)} exceeds the ${state.remaining.tokens} tokens left on "${request.cap}"`;
    }
    const size =
      request.kind === 'fs.write'
        ? BigInt(Number(p.size) || 0)
        : request.kind === 'blob.put' && typeof p.blob_ref === 'string'
          ? this.options.blobSize?.(p.blob_ref as Hash)
          : undefined;
    if (size !== undefined && state.remaining.bytes !== undefined && size > state.remaining.bytes)
      return `${size} bytes exceed the ${state.remaining.bytes} left on "${request.cap}"`;
    const ms = state.remaining.ms;
    if (request.kind === 'check.run' && ms !== undefined && (ms === 0n || BigInt(Number(p.timeout_ms) || 0) > ms))
      return ms === 0n
        ? `no wall time is left on "${request.cap}"`
        : `a timeout of ${String(p.timeout_ms)} ms exceeds the ${ms} ms left on "${request.cap}"`;
    return undefined;
  }

  /**
   * Verifies, binds and appends a receipt, then settles the grant's budget; a bad receipt is journaled and refused.
   * The payload is encoded once, at the depth it has in the journal entry, for the signed bytes, its
   * `receipt_ref` and the entry alike.
   */
  submitReceipt(receipt: Receipt): { ok: true } | { ok: false; reason: string } {
    const payload: CborValue = receipt.receipt;
    return withKnownEncodings([[payload, tryEncodePart(payload, RECEIPT_DEPTH_IN_ENTRY)]], () => this.takeReceipt(receipt, payload));
  }

  private takeReceipt(receipt: Receipt, payload: CborValue): { ok: true } | { ok: false; reason: string } {
    const { journal } = this.options;
    const refuse = (reason: string) => {
      journal.append('ReceiptRejected', {
        intent_hash: typeof receipt.intentHash === 'string' ? receipt.intentHash : null,
        adapter_id: String(receipt.adapterId),
        reason,
        submitted: receiptRecord(receipt),
      });
      return { ok: false as const, reason };
    };
    const adapter = Object.hasOwn(this.options.adapters, receipt.adapterId) ? this.options.adapters[receipt.adapterId] : undefined;
    if (adapter === undefined) return refuse(`unknown adapter "${receipt.adapterId}"`);
    let message: Uint8Array;
    try {
      message = receiptSigningBytes(receipt);
    } catch {
      return refuse('the receipt cannot be encoded');
    }
    const valid = (this.options.verifySignature ?? verifyReceiptSignature)(adapter, message, receipt.sig);
    if (!valid) return refuse('the signature does not verify');
    if (this.done.has(receipt.intentHash)) return refuse('a receipt for this intent was already appended');
    const intent = this.pending.get(receipt.intentHash);
    if (intent === undefined) return refuse('no admitted intent has this hash');
    const misfit = receipt.status === 'ok' ? this.receiptMisfit(intent.kind, payload) : undefined;
    if (misfit !== undefined) return refuse(misfit);
    this.pending.delete(receipt.intentHash);
    this.done.add(receipt.intentHash);
    journal.append('ReceiptAppended', {
      intent_hash: receipt.intentHash,
      adapter_id: receipt.adapterId,
      status: receipt.status,
      receipt_ref: hashBytes(encodeCanonical(payload)),
      submitted: receiptRecord(receipt),
    });
    this.settle(intent, receipt);
    return { ok: true };
  }

  /** Why an `ok` receipt's payload does not fit its kind's receipt schema, or undefined when it fits. */
  private receiptMisfit(kind: string, payload: CborValue): string | undefined {
    const name = EFFECT_CATALOG[kind]?.receipt;
    const schema = name === undefined ? undefined : this.options.world.schema(name, '', []);
    if (schema === undefined) return `no receipt schema for ${kind}`;
    const problems = checkValue(payload, schema.type, '/receipt');
    return problems.length === 0
      ? undefined
      : `the receipt does not fit ${name}: ${problems.map((d) => `${d.path}: ${d.message}`).join('; ')}`;
  }

  private settle(intent: EffectIntent, receipt: Receipt): void {
    const state = this.grants.get(intent.cap);
    if (state === undefined) return;
    const r = receipt.receipt as Record<string, unknown>;
    const usage: { tokens?: bigint; bytes?: bigint; cents?: bigint; ms?: bigint } = {};
    if (intent.kind === 'llm.generate' && typeof r.token_usage === 'object' && r.token_usage !== null) {
      const u = r.token_usage as { prompt?: unknown; completion?: unknown };
      usage.tokens = BigInt(Number(u.prompt) || 0) + BigInt(Number(u.completion) || 0);
    }
    if ((intent.kind === 'blob.put' || intent.kind === 'fs.write') && r.size !== undefined) usage.bytes = BigInt(Number(r.size) || 0);
    const cents = receipt.cost ?? (typeof r.cost_cents === 'number' ? r.cost_cents : undefined);
    if (cents !== undefined) usage.cents = BigInt(cents);
    if (intent.kind === 'check.run' && r.duration_ms !== undefined) usage.ms = BigInt(Number(r.duration_ms) || 0);
    for (const dim of BUDGET_DIMENSIONS) {
      const left = state.remaining[dim];
      const used = usage[dim];
      if (left === undefined || used === undefined) continue;
      const balance = left - used;
      state.remaining[dim] = balance;
      if (balance < 0n) {
        state.exhausted = true;
        this.options.journal.append('BudgetExceeded', { grant_name: intent.cap, dimension: dim, delta: used, new_balance: balance });
      }
    }
  }

  /** What is left of a grant's budget (for inspection). */
  remaining(grant: string): { tokens?: bigint; bytes?: bigint; cents?: bigint; ms?: bigint; exhausted: boolean } | undefined {
    const state = this.grants.get(grant);
    return state === undefined ? undefined : { ...state.remaining, exhausted: state.exhausted };
  }
}
