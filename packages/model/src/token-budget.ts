import type { ChatMessage, ModelProvider } from './model-types.js';

/** The window asked for unless a project sets `contextTokens`: what a 7B model's cache holds in 16 GB. */
export const DEFAULT_CONTEXT_TOKENS = 16_384;

/** The window assumed for an OpenAI-compatible server that does not say its model's context length. */
export const UNKNOWN_SERVER_CONTEXT = 8_192;

/** Characters per token assumed when estimating: low, so an estimate errs on the large side for code and paths. */
export const CHARS_PER_TOKEN = 3;

/** Tokens a chat template adds around each message, and around the chat. */
const MESSAGE_OVERHEAD = 4;
const CHAT_OVERHEAD = 3;

/** Server counts below this are too small to be a window, so never read as a cut prompt (a tiny prompt, a cache hit). */
const SMALLEST_WINDOW = 1024;

/** A server count under this share of the estimate means it read only part of the prompt. */
const CUT_SHARE = 0.6;

/** Estimated tokens of a text (an upper estimate: the model's own tokenizer is not known here). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Estimated prompt tokens of a chat, template included. */
export function estimateChatTokens(messages: readonly ChatMessage[]): number {
  let total = CHAT_OVERHEAD;
  for (const message of messages) total += MESSAGE_OVERHEAD + estimateTokens(message.content);
  return total;
}

/**
 * The window a request asks for: the model's context length, capped by the project's `contextTokens`
 * (16,384 unless set). An unknown context length counts as the cap, except on an OpenAI-compatible server
 * with no `contextTokens` set, where 8,192 is assumed.
 */
export function contextWindow(
  modelContext: number | undefined,
  contextTokens: number | undefined,
  provider: ModelProvider = 'ollama',
): number {
  const cap = contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  const known = modelContext ?? (provider === 'openai' && contextTokens === undefined ? UNKNOWN_SERVER_CONTEXT : cap);
  return Math.max(1, Math.min(known, cap));
}

/**
 * True when the server's prompt count shows that it read only part of the prompt: it filled the whole window,
 * or counted far fewer tokens than the prompt holds while counting a window's worth.
 */
export function promptWasCut(estimated: number, reported: number, window: number): boolean {
  if (reported <= 0) return false;
  if (reported >= window) return true;
  return reported >= SMALLEST_WINDOW && reported < estimated * CUT_SHARE;
}
