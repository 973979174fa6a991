import { type CborValue, encodeCanonical, type Receipt } from '@cairn/air';
import type { ProposedFile } from '@cairn/checks';
import { CHECK_GRANT, FS_GRANT, LLM_GRANT } from '@cairn/governance';
import { CHECK_ADAPTER, FS_ADAPTER, LLM_ADAPTER } from '@cairn/workspace';
import type { EffectResult } from './fs-effects.js';
import { denialMessage, idempotencyKey, isBudgetDenial, type RunContext } from './run-context.js';

/** What a governed effect came to: its receipt payload, or why not (denied by the gate, or failed). */
export type EffectOutcome =
  | { ok: true; payload: Record<string, CborValue> }
  | { ok: false; denied: boolean; message: string; code: string; hint?: string };

type Admission = { ok: true; intentHash: string } | { ok: false; outcome: EffectOutcome };

/**
 * An fs effect through the AIR gate: capability, policy and budget checks (the kernel journals the decision),
 * then the adapter's work — live, or taken from the recorded receipt in a replay — then the signed receipt,
 * verified and journaled by the kernel. Synchronous, so a caller can hold it in one SQLite transaction.
 * `perform` runs only for an admitted effect; in a replay it runs for writes only (to rebuild the overlay)
 * and must produce the payload that was recorded.
 */
export function governedFsEffect(
  ctx: RunContext,
  kind: string,
  params: Record<string, unknown>,
  perform: () => EffectResult,
  subject: Subject,
): EffectOutcome {
  const admission = admit(ctx, kind, params, subject);
  if (!admission.ok) return admission.outcome;
  if (ctx.mode === 'live')
    return finish(
      ctx,
      kind,
      ctx.signer.sign({ intentHash: admission.intentHash as Receipt['intentHash'], adapterId: FS_ADAPTER, ...receiptOf(perform()) }),
      subject,
    );
  const recorded = recordedReceipt(ctx, admission.intentHash, kind, params, subject);
  if (!('intentHash' in recorded)) return recorded;
  if (kind === 'fs.write') {
    const redone = perform();
    if (redone.status !== recorded.status || !sameCbor(redone.payload, recorded.receipt)) {
      return diverge(
        ctx,
        `${subject.tool} ${JSON.stringify(params.path ?? '')} came out differently: recorded ${show(recorded.receipt)}, replayed ${show(redone.payload)}`,
      );
    }
  }
  return finish(ctx, kind, recorded, subject);
}

/** A model call (`llm.generate`) through the gate; live it waits for the model, in a replay it takes the recorded answer. */
export async function governedModelEffect(ctx: RunContext, params: Record<string, CborValue>, subject: Subject): Promise<EffectOutcome> {
  const kind = 'llm.generate';
  const admission = admit(ctx, kind, params, subject);
  if (!admission.ok) return admission.outcome;
  if (ctx.mode === 'replay') {
    const recorded = recordedReceipt(ctx, admission.intentHash, kind, params, subject);
    return 'intentHash' in recorded ? finish(ctx, kind, recorded, subject) : recorded;
  }
  const result = await ctx.callModel(params);
  return finish(
    ctx,
    kind,
    ctx.signer.sign({ intentHash: admission.intentHash as Receipt['intentHash'], adapterId: LLM_ADAPTER, ...receiptOf(result) }),
    subject,
  );
}

/**
 * A check (`check.run`) through the gate; live it runs the check over `changes` in its sealed view, in a
 * replay it takes the recorded receipt and never runs anything.
 */
export async function governedCheckEffect(
  ctx: RunContext,
  params: Record<string, CborValue>,
  subject: Subject,
  changes: readonly ProposedFile[],
): Promise<EffectOutcome> {
  const kind = 'check.run';
  const admission = admit(ctx, kind, params, subject);
  if (!admission.ok) return admission.outcome;
  if (ctx.mode === 'replay') {
    const recorded = recordedReceipt(ctx, admission.intentHash, kind, params, subject);
    return 'intentHash' in recorded ? finish(ctx, kind, recorded, subject) : recorded;
  }
  const result = await ctx.runCheck(params, changes);
  return finish(
    ctx,
    kind,
    ctx.signer.sign({ intentHash: admission.intentHash as Receipt['intentHash'], adapterId: CHECK_ADAPTER, ...receiptOf(result) }),
    subject,
  );
}

/** Who asked for an effect, for events and messages. */
export interface Subject {
  tool: string;
  path?: string;
}

function admit(ctx: RunContext, kind: string, params: Record<string, unknown>, subject: Subject): Admission {
  const seq = ctx.calls++;
  const cap = kind === 'llm.generate' ? LLM_GRANT : kind === 'check.run' ? CHECK_GRANT : FS_GRANT;
  const admitted = ctx.kernel.enqueue({
    kind,
    params,
    cap,
    idempotencyKey: idempotencyKey(ctx.agentId, ctx.run, seq),
    origin: { kind: 'agent', name: ctx.agentId },
    instanceId: `${ctx.agentId}/${ctx.run}`,
  });
  if (admitted.ok) return { ok: true, intentHash: admitted.intent.intentHash };
  const message = denialMessage(admitted.denial);
  // a check's wall time running out is the program's to handle; tokens and bytes running out fail the agent
  if (isBudgetDenial(admitted.denial) && ctx.breach === undefined && kind !== 'check.run')
    ctx.breach = { budget: kind === 'llm.generate' ? 'tokens' : 'bytes', message };
  ctx.emit({
    type: 'agent.denied',
    time: iso(ctx),
    agentId: ctx.agentId,
    tool: subject.tool,
    effect: kind,
    ...(subject.path === undefined ? {} : { path: subject.path }),
    reason: message,
  });
  return { ok: false, outcome: { ok: false, denied: true, message, code: `denied-${admitted.denial.stage}` } };
}

function recordedReceipt(
  ctx: RunContext,
  intentHash: string,
  kind: string,
  params: Record<string, unknown>,
  subject: Subject,
): Receipt | EffectOutcome {
  const recorded = ctx.recorded?.take(intentHash);
  return (
    recorded ?? diverge(ctx, `${subject.tool} made an effect the recording does not have (${kind} ${JSON.stringify(params.path ?? '')})`)
  );
}

function finish(ctx: RunContext, kind: string, receipt: Receipt, subject: Subject): EffectOutcome {
  const settled = ctx.kernel.submitReceipt(receipt);
  if (!settled.ok) {
    if (ctx.mode === 'replay') return diverge(ctx, `the recorded receipt of ${subject.tool} was refused: ${settled.reason}`);
    throw new Error(`the kernel refused a receipt of ${kind}: ${settled.reason}`);
  }
  const payload = receipt.receipt as Record<string, CborValue>;
  if (receipt.status === 'ok') return { ok: true, payload };
  const failed: EffectOutcome = {
    ok: false,
    denied: false,
    message: String(payload.error ?? 'the effect failed'),
    code: String(payload.code ?? 'error'),
  };
  if (typeof payload.hint === 'string' && payload.hint !== '') failed.hint = payload.hint;
  return failed;
}

function receiptOf(result: EffectResult): Pick<Receipt, 'status' | 'receipt'> {
  return { status: result.status, receipt: result.payload };
}

function show(value: CborValue): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? `<${v.length} bytes>` : v,
  );
}

function diverge(ctx: RunContext, reason: string): EffectOutcome {
  ctx.divergence ??= { seq: ctx.journal.length, reason };
  return { ok: false, denied: false, message: `replay diverged: ${reason}`, code: 'replay-diverged' };
}

function sameCbor(a: CborValue, b: CborValue): boolean {
  return Buffer.from(encodeCanonical(a)).equals(Buffer.from(encodeCanonical(b)));
}

function iso(ctx: RunContext): string {
  return new Date(ctx.clock()).toISOString();
}
