import type { CborValue, Journal, JournalEntry } from '@cairn/air';
import type { RunContext } from '../run/run-context.js';

/** The journal entries Cairn writes around a model call, beside the `llm.generate` effect's receipt. */
export const MODEL_SCHEMAS = {
  /** Before a program generation: the prompt's blob and the parameters asked with, its estimate and the repo map's make-up. */
  promptBuilt: 'cairn/PromptBuilt@1',
  /** After a model call: the window, prompt size (estimated and counted), output tokens, timings, temperature and seed. */
  modelAnswered: 'cairn/ModelAnswered@1',
} as const;

/** One of the model-call schemas. */
export type ModelSchema = (typeof MODEL_SCHEMAS)[keyof typeof MODEL_SCHEMAS];

/** Appends a model-call entry (Cairn's own, as a `DomainEventAppended`). */
export function appendModelEntry(journal: Journal, schema: ModelSchema, value: Record<string, CborValue>): void {
  journal.append('DomainEventAppended', { schema, value, origin: 'cairn' });
}

/** The value of `entry` when it is a model-call entry of `schema`. */
export function modelEntry(entry: JournalEntry | undefined, schema: ModelSchema): Readonly<Record<string, unknown>> | undefined {
  if (entry?.kind !== 'DomainEventAppended') return undefined;
  const body = entry.body as { schema?: unknown; value?: unknown };
  if (body.schema !== schema || typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) return undefined;
  return body.value as Readonly<Record<string, unknown>>;
}

/**
 * In a replay: the recorded entry of `schema` where the replay has got to, appended again as it was (what a
 * live run journaled beside its effects is copied, never recomputed). Undefined when the recording has none
 * there (a journal written before such entries existed).
 */
export function replayModelEntry(ctx: RunContext, schema: ModelSchema): Readonly<Record<string, unknown>> | undefined {
  const entry = ctx.recorded?.entryAt?.(ctx.journal.length);
  const value = modelEntry(entry, schema);
  if (value === undefined) return undefined;
  ctx.transaction(() => ctx.journal.append(entry!.kind, entry!.body));
  return value;
}
