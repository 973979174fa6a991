import type { CborValue } from '@cairn/air';
import { MAX_TOKENS_PER_CALL } from '../governance/default-manifest.js';
import type { ChatMessage } from '../model/ollama-client.js';
import type { RunContext } from '../run/run-context.js';

/** The answer length `ask_llm` asks for, unless fewer tokens are left. */
const ASK_MAX_TOKENS = 2048;

/** The `llm.generate` parameters of an `ask_llm` call: the prompt is kept as a blob and named by its hash. */
export function askParams(ctx: RunContext, prompt: string, context: string): Record<string, CborValue> {
  return modelParams(ctx, buildAskPrompt(prompt, context), ASK_MAX_TOKENS, '0.2');
}

/** `llm.generate` parameters for a chat, with `max_tokens` lowered to what the budget has left. */
export function modelParams(ctx: RunContext, messages: unknown, maxTokens: number, temperature: string): Record<string, CborValue> {
  const left = ctx.tokensLeft();
  const cap = Math.min(maxTokens, MAX_TOKENS_PER_CALL, left === undefined ? Number.MAX_SAFE_INTEGER : Math.max(1, Number(left)));
  return { provider: 'ollama', model: ctx.model, temperature, max_tokens: cap, input_ref: ctx.view.blobs.putJson(messages) };
}

/** The chat of an `ask_llm` call: the program's question, with its context after it. */
export function buildAskPrompt(prompt: string, context: string): ChatMessage[] {
  const content = context === '' ? prompt : `${prompt}\n\nContext:\n${context}`;
  return [{ role: 'user', content }];
}
