import type { CborValue } from '@cairn/air';
import { MAX_TOKENS_PER_CALL } from '@cairn/governance';
import type { ChatMessage } from '@cairn/model';
import { parseModelName } from '@cairn/model';
import type { RunContext } from '../run/run-context.js';

/** The answer length `ask_llm` asks for, unless fewer tokens are left. */
const ASK_MAX_TOKENS = 2048;

/** The temperature a model is asked with unless the agent's settings say otherwise. */
export const DEFAULT_TEMPERATURE = 0.2;

/** The `llm.generate` parameters of an `ask_llm` call: the prompt is kept as a blob and named by its hash. */
export function askParams(ctx: RunContext, prompt: string, context: string): Record<string, CborValue> {
  return modelParams(ctx, buildAskPrompt(prompt, context), ASK_MAX_TOKENS, temperatureOf(ctx));
}

/** `llm.generate` parameters for a chat, with `max_tokens` lowered to what the budget has left. */
export function modelParams(ctx: RunContext, messages: unknown, maxTokens: number, temperature: string): Record<string, CborValue> {
  const left = ctx.tokensLeft();
  const cap = Math.min(maxTokens, MAX_TOKENS_PER_CALL, left === undefined ? Number.MAX_SAFE_INTEGER : Math.max(1, Number(left)));
  const provider = parseModelName(ctx.model).provider;
  return { provider, model: ctx.model, temperature, max_tokens: cap, input_ref: ctx.view.blobs.putJson(messages) };
}

/** The agent's temperature as the effect's decimal text (`0.2`). */
export function temperatureOf(ctx: RunContext): string {
  const value = ctx.modelOptions?.temperature ?? DEFAULT_TEMPERATURE;
  return String(Number(value.toFixed(4)));
}

/** The chat of an `ask_llm` call: the program's question, with its context after it. */
export function buildAskPrompt(prompt: string, context: string): ChatMessage[] {
  const content = context === '' ? prompt : `${prompt}\n\nContext:\n${context}`;
  return [{ role: 'user', content }];
}
