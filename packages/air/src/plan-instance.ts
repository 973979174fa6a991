import type { CborValue } from './cbor-value.js';
import type { AirDiagnostic } from './diagnostic.js';
import { type ExprEnv, evaluateExpr } from './expr.js';
import type { DefPlanNode, PlanStep } from './nodes.js';

/** Where a plan instance is. */
export type InstanceStatus = 'running' | 'waiting' | 'ended' | 'failed';

/** One plan instance's state (all of it canonical values, so the whole can be hashed). */
export interface PlanInstance {
  id: string;
  plan: string;
  manifestHash: string;
  status: InstanceStatus;
  input: CborValue;
  vars: Record<string, CborValue>;
  outputs: Record<string, CborValue>;
  completed: string[];
  /** Intent hashes this instance emitted, by the step that emitted them. */
  intents: Record<string, string>;
  result?: CborValue;
  error?: AirDiagnostic;
}

/** A receipt delivered for an intent. */
export interface DeliveredReceipt {
  status: string;
  receipt: CborValue;
}

/** A domain event delivered to the runner. */
export interface DeliveredEvent {
  schema: string;
  value: CborValue;
}

/** What a step's expressions read: the instance's input, its variables and the outputs of completed steps. */
export function instanceEnv(instance: PlanInstance): ExprEnv {
  return { input: instance.input, vars: instance.vars, steps: instance.outputs };
}

/**
 * The step to run next: not completed, every predecessor completed, every incoming guard true, and able to
 * progress (an await has what it waits for); the first by step id, then definition order.
 */
export function nextReadyStep(
  plan: DefPlanNode,
  instance: PlanInstance,
  receipts: ReadonlyMap<string, DeliveredReceipt>,
  events: readonly DeliveredEvent[],
): PlanStep | undefined {
  const candidates = plan.steps
    .map((step, index) => ({ step, index }))
    .filter(({ step }) => !instance.completed.includes(step.id) && predecessorsDone(plan, instance, step.id))
    .filter(({ step }) =>
      plan.edges
        .filter((e) => e.to === step.id && e.when !== undefined)
        .every((e) => {
          const guard = evaluateExpr(e.when, instanceEnv(instance));
          return guard.ok && guard.value === true;
        }),
    )
    .filter(({ step }) => canProgress(step, instance, receipts, events))
    .sort((a, b) => (a.step.id < b.step.id ? -1 : a.step.id > b.step.id ? 1 : a.index - b.index));
  return candidates[0]?.step;
}

/** True when an await step not yet completed has all its predecessors completed: the instance waits for an input. */
export function isAwaiting(plan: DefPlanNode, instance: PlanInstance): boolean {
  return plan.steps.some(
    (s) =>
      !instance.completed.includes(s.id) && predecessorsDone(plan, instance, s.id) && (s.op === 'await_receipt' || s.op === 'await_event'),
  );
}

/** The first delivered event an `await_event` step accepts (its schema, and its `where` with the event bound), if any. */
export function matchEvent(
  step: Extract<PlanStep, { op: 'await_event' }>,
  instance: PlanInstance,
  events: readonly DeliveredEvent[],
): CborValue | undefined {
  const schema = typeof step.event === 'string' ? step.event : undefined;
  for (const event of events) {
    if (schema !== undefined && event.schema !== schema) continue;
    if (step.where === undefined) return event.value;
    const env = instanceEnv(instance);
    const matched = evaluateExpr(step.where, { ...env, vars: { ...env.vars, [step.bind.as]: event.value } });
    if (matched.ok && matched.value === true) return event.value;
  }
  return undefined;
}

/** An instance's state as one canonical value, for its hash. */
export function instanceSnapshot(instance: PlanInstance): CborValue {
  const out: Record<string, CborValue> = {
    id: instance.id,
    plan: instance.plan,
    manifest: instance.manifestHash,
    status: instance.status,
    input: instance.input,
    vars: instance.vars,
    outputs: instance.outputs,
    completed: instance.completed,
    intents: instance.intents,
  };
  if (instance.result !== undefined) out.result = instance.result;
  if (instance.error !== undefined) out.error = { code: instance.error.code, path: instance.error.path };
  return out;
}

function predecessorsDone(plan: DefPlanNode, instance: PlanInstance, id: string): boolean {
  return plan.edges.filter((e) => e.to === id).every((e) => instance.completed.includes(e.from));
}

function canProgress(
  step: PlanStep,
  instance: PlanInstance,
  receipts: ReadonlyMap<string, DeliveredReceipt>,
  events: readonly DeliveredEvent[],
): boolean {
  if (step.op === 'await_receipt') {
    const target = evaluateExpr(step.for, instanceEnv(instance));
    return target.ok && typeof target.value === 'string' && receipts.has(target.value);
  }
  if (step.op === 'await_event') return matchEvent(step, instance, events) !== undefined;
  return true;
}
