import { parseModelName } from './model-name.js';
import type { ChatMessage, ModelAnswer, ModelClient, ModelFault, ModelProvider } from './model-types.js';
import { contextWindow, estimateChatTokens, promptWasCut } from './token-budget.js';

/** The shortest answer worth asking for: a prompt that leaves less room in the window is refused before it is sent. */
export const MIN_ANSWER_TOKENS = 256;

/** How an agent asks: its window cap, seed, deadline, and the signal that stops it. */
export interface WindowOptions {
  contextTokens?: number;
  seed?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The provider of bare model names. */
  provider?: ModelProvider;
}

/** What a windowed chat tells besides the answer: the numbers a person needs to see why an answer was poor. */
export interface WindowFacts {
  provider: ModelProvider;
  window: number;
  promptEstimate: number;
  maxTokens: number;
  temperature: number;
  seed?: number;
  promptTokens?: number;
  outputTokens?: number;
  firstTokenMs?: number;
  totalMs?: number;
  doneReason?: string;
}

/**
 * Asks the model within an explicit window: the window is the model's context length (asked once per model)
 * capped by `contextTokens` (16,384 unless set), the answer limit is lowered to what the prompt leaves of it,
 * and the server's prompt count is checked afterwards — a prompt the server cut is a `model-window` fault, not
 * an answer.
 */
export async function chatInWindow(
  client: ModelClient,
  request: { model: string; messages: readonly ChatMessage[]; maxTokens: number; temperature: number },
  options: WindowOptions = {},
): Promise<{ answer: ModelAnswer; facts?: WindowFacts }> {
  const provider = parseModelName(request.model, options.provider).provider;
  const context = await client.contextLength(request.model);
  if (!context.ok) return { answer: context };
  const window = contextWindow(context.tokens, options.contextTokens, provider);
  const promptEstimate = estimateChatTokens(request.messages);
  const room = window - promptEstimate;
  const maxTokens = Math.min(request.maxTokens, room);
  const facts: WindowFacts = { provider, window, promptEstimate, maxTokens: Math.max(0, maxTokens), temperature: request.temperature };
  if (options.seed !== undefined) facts.seed = options.seed;
  if (maxTokens < Math.min(MIN_ANSWER_TOKENS, request.maxTokens))
    return { answer: { ok: false, fault: tooLong(promptEstimate, window, request.model) }, facts };
  const answer = await client.chat({
    model: request.model,
    messages: request.messages,
    maxTokens,
    temperature: request.temperature,
    contextTokens: window,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (!answer.ok) return { answer, facts };
  Object.assign(facts, {
    promptTokens: answer.promptTokens,
    outputTokens: answer.completionTokens,
    firstTokenMs: answer.firstTokenMs,
    totalMs: answer.totalMs,
    doneReason: answer.doneReason,
  });
  if (promptWasCut(promptEstimate, answer.promptTokens, window))
    return {
      answer: {
        ok: false,
        fault: {
          code: 'model-window',
          message: `the server cut the prompt: it read ${answer.promptTokens} of its ~${promptEstimate} tokens (window ${window}), so the model never saw all of it; the answer was not used`,
          hint:
            provider === 'ollama'
              ? 'Ollama ignored the window Cairn asked for; update Ollama, or lower model.contextTokens in .cairn/config.json'
              : "the server's context is smaller than Cairn assumed: set model.contextTokens in .cairn/config.json to it (llama-server -c, vLLM --max-model-len)",
        },
      },
      facts,
    };
  return { answer, facts };
}

function tooLong(estimate: number, window: number, model: string): ModelFault {
  return {
    code: 'model-window',
    message: `the prompt (~${estimate} tokens) leaves no room for an answer in the ${window}-token window of ${model}`,
    hint: 'pass less context to ask_llm, use a model with a larger context, or raise model.contextTokens in .cairn/config.json',
  };
}
