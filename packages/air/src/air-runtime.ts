import { encodeCanonical } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { Journal, type JournalEntry, type JournalHead, verifyChain } from './journal.js';
import { type AdapterKey, type EffectIntent, EffectKernel, type Receipt, receiptFromRecord, type SignatureVerifier } from './kernel.js';
import type { Hash } from './node-hash.js';
import { hashBytes, hashNode } from './node-hash.js';
import type { CapGrantJson, DefPolicyNode } from './nodes.js';
import { type PlanInstance, PlanRunner } from './plan-runner.js';
import type { Reducer } from './reducer.js';
import { zeroValue } from './values.js';
import type { World } from './world.js';

/** Everything that defines a world's behaviour apart from its inputs. */
export interface RuntimeConfig {
  world: World;
  manifestHash: string;
  grants: readonly CapGrantJson[];
  policy?: DefPolicyNode;
  adapters: Readonly<Record<string, AdapterKey>>;
  nowNs: () => bigint;
  verifySignature?: SignatureVerifier;
  raise?: (reducer: string, event: CborValue, key: CborValue | undefined) => void;
  onIntent?: (instance: string, step: string, intent: EffectIntent) => void;
  /** Loaded reducers by module name: `raise_event` steps them, their domain events are appended. */
  reducers?: Readonly<Record<string, Reducer>>;
  /** The manifest's triggers: an appended event of a trigger's schema starts its plan. */
  triggers?: readonly { event: unknown; plan: string }[];
}

/**
 * The kernel and the plan runner over one journal: plans start, receipts arrive, events are appended, and every
 * one of those inputs lands in the journal with its value. `replayJournal` feeds the inputs of a journal to a
 * fresh runtime and must reproduce it entry for entry and the same state hash.
 */
export class AirRuntime {
  readonly journal: Journal;
  readonly kernel: EffectKernel;
  readonly runner: PlanRunner;
  private readonly config: RuntimeConfig;
  /** Reducer states by module, then by the hex of the key's canonical bytes ('' when unkeyed). */
  private readonly states = new Map<string, Map<string, CborValue>>();
  private triggered = 0;

  constructor(config: RuntimeConfig, journal: Journal = Journal.create()) {
    this.config = config;
    this.journal = journal;
    this.kernel = new EffectKernel({
      world: config.world,
      grants: config.grants,
      ...(config.policy ? { policy: config.policy } : {}),
      journal: this.journal,
      adapters: config.adapters,
      nowNs: config.nowNs,
      ...(config.verifySignature ? { verifySignature: config.verifySignature } : {}),
    });
    this.runner = new PlanRunner({
      world: config.world,
      kernel: this.kernel,
      journal: this.journal,
      manifestHash: config.manifestHash,
      raise: (reducer, event, key) => this.raise(reducer, event, key),
      ...(config.onIntent ? { onIntent: config.onIntent } : {}),
    });
  }

  start(plan: string, input: unknown, instanceId: string): PlanInstance {
    return this.runner.start(plan, input, instanceId);
  }

  /** Submits a receipt to the kernel and, if it is accepted, wakes the plans awaiting it. */
  receipt(receipt: Receipt): { ok: true } | { ok: false; reason: string } {
    const accepted = this.kernel.submitReceipt(receipt);
    if (accepted.ok) this.runner.deliverReceipt(receipt.intentHash, receipt.status, receipt.receipt);
    return accepted;
  }

  /** Appends a domain event from outside (replayed as an input) and lets it trigger and wake plans. */
  event(schema: string, value: CborValue): void {
    this.append(schema, value, 'external');
  }

  private append(schema: string, value: CborValue, origin: string): void {
    this.journal.append('DomainEventAppended', { schema, value, origin });
    (this.config.triggers ?? []).forEach((trigger, index) => {
      if (trigger.event !== schema) return;
      const id = `trigger-${index}-${this.triggered++}`;
      this.runner.start(trigger.plan, value, id, index);
    });
    this.runner.deliverEvent(schema, value);
  }

  /** Steps a reducer with a raised event, keeps its new state, and appends the domain events it emits. */
  private raise(reducer: string, event: CborValue, key: CborValue | undefined): void {
    this.config.raise?.(reducer, event, key);
    const module = this.config.reducers?.[reducer];
    if (module === undefined) return;
    const keyId = key === undefined ? '' : hashBytes(encodeCanonical(key));
    const states = this.states.get(reducer) ?? new Map<string, CborValue>();
    this.states.set(reducer, states);
    const stepped = module.step(states.get(keyId) ?? this.initialState(reducer), event, key);
    if (!stepped.ok) {
      this.journal.append('ReducerFailed', { reducer, key: key ?? null, error: stepped.error });
      return;
    }
    states.set(keyId, stepped.output.state);
    this.journal.append('ReducerStepped', { reducer, key: key ?? null, state_hash: hashBytes(encodeCanonical(stepped.output.state)) });
    stepped.output.effects.forEach((effect, index) => this.emitFromReducer(reducer, keyId, index, effect));
    for (const domainEvent of stepped.output.domainEvents) this.append(domainEvent.schema, domainEvent.value, reducer);
  }

  /** A reducer's micro-effect `{ kind, params, cap }` goes through the same gate as a plan's, with origin kind "reducer". */
  private emitFromReducer(reducer: string, keyId: string, index: number, effect: CborValue): void {
    const e = effect as Record<string, CborValue>;
    if (
      typeof e !== 'object' ||
      e === null ||
      typeof e.kind !== 'string' ||
      typeof e.cap !== 'string' ||
      typeof e.params !== 'object' ||
      e.params === null
    ) {
      this.journal.append('ReducerFailed', { reducer, error: `effect ${index} is not { kind, params, cap }` });
      return;
    }
    const seed = hashBytes(encodeCanonical([reducer, keyId, this.journal.headHash ?? '', index]));
    const idempotencyKey = Uint8Array.from(seed.slice(7).match(/../g)!, (h) => Number.parseInt(h, 16));
    const admitted = this.kernel.enqueue({
      kind: e.kind,
      params: e.params as Record<string, unknown>,
      cap: e.cap,
      idempotencyKey,
      origin: { kind: 'reducer', name: reducer },
    });
    if (admitted.ok) this.config.onIntent?.(`reducer:${reducer}`, String(index), admitted.intent);
  }

  private initialState(reducer: string): CborValue {
    const module = this.config.world.get('defmodule', reducer);
    const type = module === undefined ? undefined : this.config.world.resolveSchemaRef(module.node.abi.reducer.state, '', [])?.type;
    return type === undefined ? null : zeroValue(type);
  }

  /** A reducer's state (for a key, when keyed). */
  reducerState(reducer: string, key?: CborValue): CborValue | undefined {
    return this.states.get(reducer)?.get(key === undefined ? '' : hashBytes(encodeCanonical(key)));
  }

  /** The hash of the plans' and the reducers' state together. */
  stateHash(): Hash {
    const reducers = [...this.states.keys()]
      .sort()
      .map((name) => [name, [...this.states.get(name)!.entries()].sort(([a], [b]) => (a < b ? -1 : 1))] as CborValue);
    return hashNode({ plans: this.runner.stateHash(), reducers });
  }
}

/** The outcome of a replay: the same journal and state, or where they part. */
export type ReplayOutcome =
  | { ok: true; stateHash: Hash; produced: JournalEntry[] }
  | {
      ok: false;
      seq: number;
      reason: string;
      /** What the replay wrote (empty when the recorded journal was refused before replaying). */
      produced: JournalEntry[];
      /** The first entry where the two journals part, with both sides (either may be missing). */
      divergence?: { recorded?: JournalEntry; replayed?: JournalEntry };
    };

/**
 * Replays a journal: first verifies its chain (each body against its hash, each `prev`, and the expected head
 * when given) and fails at the first bad entry; then starts the same plans with the same inputs, submits the
 * same receipts (signatures included) and appends the same events, in order, to a fresh runtime with the same
 * configuration; then requires every produced entry to equal the recorded one. Returns the produced journal
 * either way, and on a mismatch the first divergence with both entries.
 */
export function replayJournal(config: RuntimeConfig, entries: readonly JournalEntry[], expectedHead?: JournalHead): ReplayOutcome {
  const broken = verifyChain(entries, expectedHead);
  if (broken !== undefined)
    return { ok: false, seq: broken.seq, reason: `the recorded journal does not verify: ${broken.reason}`, produced: [] };
  const runtime = new AirRuntime(config);
  for (const entry of entries) {
    const body = entry.body as Record<string, CborValue>;
    if (entry.kind === 'PlanStarted' && body.trigger === null) runtime.start(String(body.plan_name), body.input, String(body.instance_id));
    else if (entry.kind === 'ReceiptAppended' || entry.kind === 'ReceiptRejected') {
      const receipt = receiptFromRecord(body.submitted ?? null);
      if (receipt === undefined)
        return { ok: false, seq: entry.seq, reason: 'a receipt entry does not hold its receipt', produced: runtime.journal.entries() };
      runtime.receipt(receipt);
    } else if (entry.kind === 'DomainEventAppended' && body.origin === 'external') runtime.event(String(body.schema), body.value ?? null);
  }
  const produced = runtime.journal.entries();
  for (let i = 0; i < Math.max(produced.length, entries.length); i++) {
    if (produced[i]?.hash !== entries[i]?.hash) {
      const reason =
        produced[i] === undefined
          ? `the replay stopped before entry ${i}`
          : entries[i] === undefined
            ? `the replay wrote an extra entry ${i}`
            : `entry ${i} differs: recorded ${entries[i]!.kind}, replayed ${produced[i]!.kind}`;
      const divergence: { recorded?: JournalEntry; replayed?: JournalEntry } = {};
      if (entries[i] !== undefined) divergence.recorded = entries[i]!;
      if (produced[i] !== undefined) divergence.replayed = produced[i]!;
      return { ok: false, seq: i, reason, produced, divergence };
    }
  }
  return { ok: true, stateHash: runtime.stateHash(), produced };
}

/** What a shadow run predicts: the intents a plan would emit and the steps it would take, up to its first wait. */
export interface ShadowReport {
  intents: { step: string; kind: string; cap: string; params: CborValue; intentHash: Hash }[];
  path: string[];
  status: PlanInstance['status'];
  /** The step it would wait at, if any. */
  waitsAt?: string;
  error?: string;
}

/** Runs a plan with effects stubbed (no receipt ever arrives) on a scratch journal and reports what it would do. */
export function shadowRun(config: RuntimeConfig, plan: string, input: unknown): ShadowReport {
  const intents: ShadowReport['intents'] = [];
  const runtime = new AirRuntime({
    ...config,
    onIntent: (_instance, step, intent) =>
      intents.push({ step, kind: intent.kind, cap: intent.cap, params: intent.params, intentHash: intent.intentHash }),
  });
  const instance = runtime.start(plan, input, 'shadow');
  const report: ShadowReport = { intents, path: [...instance.completed], status: instance.status };
  const definition = config.world.get('defplan', plan)?.node;
  if (instance.status === 'waiting' && definition !== undefined) {
    const waiting = definition.steps.find(
      (s) =>
        !instance.completed.includes(s.id) &&
        (s.op === 'await_receipt' || s.op === 'await_event') &&
        definition.edges.filter((e) => e.to === s.id).every((e) => instance.completed.includes(e.from)),
    );
    if (waiting !== undefined) report.waitsAt = waiting.id;
  }
  if (instance.error !== undefined) report.error = `${instance.error.code}: ${instance.error.message}`;
  return report;
}
