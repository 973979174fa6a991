import { encodeCanonical } from './canonical-cbor.js';
import type { CborValue } from './cbor-value.js';
import { type AirDiagnostic, diagnostic } from './diagnostic.js';
import { AirError } from './errors.js';
import { evaluateExpr } from './expr.js';
import type { Journal } from './journal.js';
import type { EffectIntent, EffectKernel } from './kernel.js';
import { type Hash, hashBytes, hashNode } from './node-hash.js';
import type { DefPlanNode, PlanStep } from './nodes.js';
import {
  type DeliveredEvent,
  type DeliveredReceipt,
  instanceEnv,
  instanceSnapshot,
  isAwaiting,
  matchEvent,
  nextReadyStep,
  type PlanInstance,
} from './plan-instance.js';
import { encodeTypedValue } from './values.js';
import type { World } from './world.js';

export type { InstanceStatus, PlanInstance } from './plan-instance.js';

/** What the host gives the runner. */
export interface PlanRunnerOptions {
  world: World;
  kernel: EffectKernel;
  journal: Journal;
  manifestHash: string;
  /** Delivers a `raise_event` to a reducer (the host runs reducers). */
  raise?: (reducer: string, event: CborValue, key: CborValue | undefined) => void;
  /** Stub effects: admitted intents are recorded, never waited for (shadow runs). */
  onIntent?: (instance: string, step: string, intent: EffectIntent) => void;
}

/**
 * Executes plans (AIR v1 §11): one ready step per tick — ready when every predecessor has completed and every
 * incoming guard is true — chosen by step id, then definition order. `emit_effect` goes through the kernel and
 * completes at once; `await_receipt` and `await_event` park the instance until `deliverReceipt` or
 * `deliverEvent`; `end` checks its result against the plan's output. Any failure ends the instance as failed.
 * Every input (start, receipt, event) is journaled with its value, so a journal can be replayed.
 */
export class PlanRunner {
  private readonly options: PlanRunnerOptions;
  private readonly instances = new Map<string, PlanInstance>();
  private readonly receipts = new Map<string, DeliveredReceipt>();
  private readonly events: DeliveredEvent[] = [];

  constructor(options: PlanRunnerOptions) {
    this.options = options;
  }

  /** Starts a plan by name with an input (checked against its input schema); returns the instance. `trigger` names the manifest trigger that started it. */
  start(planName: string, input: unknown, instanceId: string, trigger?: number): PlanInstance {
    if (this.instances.has(instanceId)) throw new AirError('AIR_STORE', `a plan instance "${instanceId}" already exists`);
    const entry = this.options.world.get('defplan', planName);
    const instance: PlanInstance = {
      id: instanceId,
      plan: planName,
      manifestHash: this.options.manifestHash,
      status: 'running',
      input: null,
      vars: {},
      outputs: {},
      completed: [],
      intents: {},
    };
    this.instances.set(instanceId, instance);
    if (entry === undefined) return this.fail(instance, diagnostic('plan.unknown', `no plan named "${planName}"`, ''));
    const inputType = this.options.world.resolveSchemaRef(entry.node.input, '/input', [])?.type;
    const typed = inputType === undefined ? undefined : encodeTypedValue(input, inputType, '/input');
    if (typed === undefined || !typed.ok)
      return this.fail(
        instance,
        typed?.ok === false ? typed.diagnostics[0]! : diagnostic('plan.input', 'the plan input schema does not resolve', '/input'),
      );
    instance.input = typed.value;
    this.options.journal.append('PlanStarted', {
      plan_name: planName,
      instance_id: instanceId,
      input_hash: hashBytes(encodeCanonical(typed.value)),
      input: input as CborValue,
      manifest_hash: this.options.manifestHash,
      trigger: trigger ?? null,
    });
    this.run(instance);
    return instance;
  }

  /** A receipt for an intent reached the kernel: wake whoever awaits it. */
  deliverReceipt(intentHash: string, status: 'ok' | 'error', receipt: CborValue): void {
    this.receipts.set(intentHash, { status, receipt });
    for (const instance of this.instances.values()) if (instance.status === 'waiting') this.run(instance);
  }

  /** A domain event was appended: wake instances awaiting its schema. */
  deliverEvent(schema: string, value: CborValue): void {
    this.events.push({ schema, value });
    for (const instance of this.instances.values()) if (instance.status === 'waiting') this.run(instance);
  }

  instance(id: string): PlanInstance | undefined {
    return this.instances.get(id);
  }

  /** The hash of every instance's state, in id order: equal states have equal hashes. */
  stateHash(): Hash {
    const ids = [...this.instances.keys()].sort();
    return hashNode(ids.map((id) => instanceSnapshot(this.instances.get(id)!)));
  }

  /** Runs ticks until no step is ready. */
  private run(instance: PlanInstance): void {
    const plan = this.options.world.get('defplan', instance.plan)?.node;
    if (plan === undefined) return;
    instance.status = 'running';
    for (;;) {
      if (instance.status !== 'running') return;
      const step = nextReadyStep(plan, instance, this.receipts, this.events);
      if (step === undefined) {
        if (isAwaiting(plan, instance)) instance.status = 'waiting';
        else if (plan.output !== undefined)
          this.fail(instance, diagnostic('plan.no-end', 'the plan stopped without reaching "end", but it declares an output', '/steps'));
        else this.end(instance, plan, undefined);
        return;
      }
      const progressed = this.execute(plan, instance, step);
      if (!progressed) {
        instance.status = 'waiting';
        return;
      }
    }
  }

  /** Executes one step; false when it cannot complete yet. */
  private execute(plan: DefPlanNode, instance: PlanInstance, step: PlanStep): boolean {
    const complete = (output: CborValue, bindAs?: string) => {
      instance.outputs[step.id] = output;
      if (bindAs !== undefined) instance.vars[bindAs] = output;
      instance.completed.push(step.id);
      return true;
    };
    const evaluate = (expr: unknown, path: string) => {
      const result = evaluateExpr(expr, instanceEnv(instance), path);
      if (!result.ok) this.fail(instance, { ...result.diagnostics[0]!, stepId: step.id, name: plan.name });
      return result;
    };
    switch (step.op) {
      case 'assign': {
        const value = evaluate(step.expr, '/expr');
        return value.ok ? complete(value.value, step.bind.as) : true;
      }
      case 'emit_effect': {
        const params = evaluate(step.params, '/params');
        if (!params.ok) return true;
        const idempotencyKey = hashBytes(encodeCanonical([instance.id, step.id]));
        const key = Uint8Array.from(idempotencyKey.slice(7).match(/../g)!, (h) => Number.parseInt(h, 16));
        const admitted = this.options.kernel.enqueue({
          kind: step.kind,
          params: params.value as Record<string, unknown>,
          cap: step.cap,
          idempotencyKey: key,
          origin: { kind: 'plan', name: plan.name },
          instanceId: instance.id,
        });
        if (!admitted.ok) {
          this.fail(
            instance,
            diagnostic('plan.effect-denied', `${step.kind} was denied (${admitted.denial.stage}): ${admitted.denial.reason}`, '/kind', {
              name: plan.name,
              stepId: step.id,
            }),
          );
          return true;
        }
        instance.intents[step.id] = admitted.intent.intentHash;
        this.options.onIntent?.(instance.id, step.id, admitted.intent);
        return complete(admitted.intent.intentHash, step.bind.effect_id_as);
      }
      case 'await_receipt': {
        const target = evaluate(step.for, '/for');
        if (!target.ok) return true;
        const receipt = this.receipts.get(String(target.value));
        if (receipt === undefined) return false;
        return complete(
          {
            status: receipt.status,
            ...(typeof receipt.receipt === 'object' && receipt.receipt !== null && !Array.isArray(receipt.receipt)
              ? (receipt.receipt as Record<string, CborValue>)
              : { value: receipt.receipt }),
          },
          step.bind.as,
        );
      }
      case 'await_event': {
        const event = matchEvent(step, instance, this.events);
        return event === undefined ? false : complete(event, step.bind.as);
      }
      case 'raise_event': {
        const event = evaluate(step.event, '/event');
        if (!event.ok) return true;
        let key: CborValue | undefined;
        if (step.key !== undefined) {
          const k = evaluate(step.key, '/key');
          if (!k.ok) return true;
          key = k.value;
        }
        this.options.raise?.(step.reducer, event.value, key);
        return complete(event.value);
      }
      case 'end': {
        let result: CborValue | undefined;
        if (step.result !== undefined) {
          const value = evaluate(step.result, '/result');
          if (!value.ok) return true;
          result = value.value;
        }
        instance.completed.push(step.id);
        this.end(instance, plan, result);
        return true;
      }
    }
  }

  private end(instance: PlanInstance, plan: DefPlanNode, result: CborValue | undefined): void {
    if (plan.output !== undefined) {
      const output = this.options.world.resolveSchemaRef(plan.output, '/output', [])?.type;
      const typed = output === undefined ? undefined : encodeTypedValue(result, output, '/result');
      if (typed === undefined || !typed.ok) {
        this.fail(
          instance,
          typed?.ok === false
            ? { ...typed.diagnostics[0]!, name: plan.name }
            : diagnostic('plan.output', 'the output schema does not resolve', '/output'),
        );
        return;
      }
      result = typed.value;
    }
    instance.status = 'ended';
    if (result !== undefined) instance.result = result;
    this.options.journal.append('PlanEnded', {
      instance_id: instance.id,
      status: 'ok',
      result_ref: result === undefined ? null : hashBytes(encodeCanonical(result)),
    });
  }

  private fail(instance: PlanInstance, error: AirDiagnostic): PlanInstance {
    instance.status = 'failed';
    instance.error = error;
    this.options.journal.append('PlanEnded', { instance_id: instance.id, status: 'error', error: `${error.code}: ${error.message}` });
    return instance;
  }
}
