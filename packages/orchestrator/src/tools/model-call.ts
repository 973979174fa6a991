import type { CborValue } from '@cairn/air';
import { type EffectOutcome, governedModelEffect, type Subject } from '../run/governed-effect.js';
import type { RunContext } from '../run/run-context.js';
import { appendModelEntry, MODEL_SCHEMAS, replayModelEntry } from './model-journal.js';

/** A governed model call's outcome, with why the server stopped its answer (`stop`, `length`…) where it said. */
export type ModelCallOutcome = EffectOutcome & { doneReason?: string };

/**
 * A governed model call (`llm.generate`) followed by a `cairn/ModelAnswered@1` entry with what the adapter
 * told of it: the window asked for, the prompt's estimated and counted size, the output tokens, the time to
 * the first token, temperature and seed. A replay copies the recorded entry instead (and reads its stop reason).
 */
export async function governedModelCall(ctx: RunContext, params: Record<string, CborValue>, subject: Subject): Promise<ModelCallOutcome> {
  if (ctx.mode === 'replay') {
    const outcome = await governedModelEffect(ctx, params, subject);
    return withDoneReason(outcome, replayModelEntry(ctx, MODEL_SCHEMAS.modelAnswered)?.done_reason);
  }
  let facts: Record<string, CborValue> | undefined;
  const live = ctx.callModel;
  // tool calls of one agent never overlap, so the context's caller can be watched for this one call
  ctx.callModel = async (p) => {
    const result = await live(p);
    facts = result.facts;
    return result;
  };
  let outcome: EffectOutcome;
  try {
    outcome = await governedModelEffect(ctx, params, subject);
  } finally {
    ctx.callModel = live;
  }
  if (facts !== undefined) {
    const value = facts;
    ctx.transaction(() => appendModelEntry(ctx.journal, MODEL_SCHEMAS.modelAnswered, { run: ctx.run, tool: subject.tool, ...value }));
  }
  return withDoneReason(outcome, facts?.done_reason);
}

function withDoneReason(outcome: EffectOutcome, doneReason: unknown): ModelCallOutcome {
  return typeof doneReason === 'string' ? { ...outcome, doneReason } : outcome;
}
