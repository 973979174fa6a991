import type { JournalEntry } from '@cairn/air';
import type { JournalRow } from '@cairn/api';
import { MODEL_SCHEMAS, modelEntry } from './model-journal.js';

/**
 * The journal's rows with what the model calls journaled beside their receipts: a `prompt` row for each built
 * prompt (its estimated size in the window, the answer it leaves room for, what the repo map holds), and on
 * each `llm.generate` row the window, the prompt's counted and estimated size, the output tokens, the time to
 * the first token, temperature and seed.
 */
export function withModelRows(entries: readonly JournalEntry[], rows: readonly JournalRow[]): JournalRow[] {
  const out = [...rows];
  for (const entry of entries) {
    const built = modelEntry(entry, MODEL_SCHEMAS.promptBuilt);
    if (built !== undefined) {
      const time = [...out].reverse().find((row) => row.seq < entry.seq)?.time ?? out[0]?.time ?? new Date(0).toISOString();
      out.push({
        seq: entry.seq,
        time,
        kind: 'prompt',
        effect: 'prompt',
        decision: built.fault_code === undefined ? 'built' : 'refused',
        detail: describePrompt(built),
      });
      continue;
    }
    const answered = modelEntry(entry, MODEL_SCHEMAS.modelAnswered);
    if (answered === undefined) continue;
    const call = [...out].reverse().find((row) => row.seq < entry.seq && row.effect === 'llm.generate');
    if (call === undefined) continue;
    const facts = describeAnswer(answered);
    call.detail = call.detail === undefined || call.decision === 'ok' ? facts : `${call.detail} (${facts})`;
  }
  return out.sort((a, b) => a.seq - b.seq);
}

function describePrompt(value: Readonly<Record<string, unknown>>): string {
  if (typeof value.fault_code === 'string') return String(value.fault_message ?? value.fault_code);
  const map = (value.map ?? {}) as Record<string, unknown>;
  const named = Array.isArray(map.named) ? map.named.length : 0;
  const parts = [
    `~${num(value.prompt_estimate)} of ${num(value.window)} tokens, answer ≤ ${num(value.max_tokens)}, built in ${num(value.build_ms)} ms`,
    `map: ${named} named, ${num(map.recent)} recent, ${num(map.matched)} matched, ${num(map.files)} files${map.complete === true ? '' : ` (folders summarised below depth ${num(map.depth)})`}`,
  ];
  if (Array.isArray(map.missing) && map.missing.length > 0) parts.push(`not found: ${map.missing.join(', ')}`);
  return parts.join('; ');
}

function describeAnswer(value: Readonly<Record<string, unknown>>): string {
  const parts = [`window ${num(value.window)}`];
  parts.push(
    value.prompt_tokens === undefined
      ? `prompt ~${num(value.prompt_estimate)}`
      : `prompt ${num(value.prompt_tokens)} (~${num(value.prompt_estimate)})`,
  );
  if (value.output_tokens !== undefined) parts.push(`out ${num(value.output_tokens)}/${num(value.max_tokens)}`);
  if (value.first_token_ms !== undefined) parts.push(`first token ${num(value.first_token_ms)} ms`);
  parts.push(`temp ${String(value.temperature ?? '')}${value.seed === undefined ? '' : ` seed ${String(value.seed)}`}`);
  if (value.done_reason !== undefined && value.done_reason !== 'stop') parts.push(`stopped: ${String(value.done_reason)}`);
  return parts.join(' · ');
}

function num(value: unknown): string {
  return typeof value === 'number' || typeof value === 'bigint' ? String(value) : '?';
}
