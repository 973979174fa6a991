import type OpenAI from 'openai';
import { AnswerDeadline, stallLimitOf } from './answer-deadline.js';
import type { ModelFault, ModelListing, ProviderClient } from './model-types.js';
import { stoppedFault } from './ollama-faults.js';
import { openAiFaultOf } from './openai-faults.js';
import { streamChat } from './openai-stream.js';
import { BUSY_RETRIES, isBusyStatus, retryDelayMs } from './retry-after.js';

/** Where an OpenAI-compatible server is, and the key it takes. */
export interface OpenAiSettings {
  /** The API's base URL, `/v1` included (`http://127.0.0.1:8080/v1` for llama-server). */
  baseUrl: string;
  /** The key, when the server wants one. */
  apiKey?: string;
}

/** The base URL the official client uses unless `OPENAI_BASE_URL` or the project's settings say otherwise. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** An OpenAI-compatible server (llama-server, vLLM, LM Studio, LocalAI, a hosted API), through the official `openai` client. */
export type OpenAiProvider = ProviderClient;

/**
 * An OpenAI chat-completions provider: every answer streamed (usage asked for in the last chunk), a deadline
 * for the whole answer and a shorter one between chunks, a reject aborting the request at once, 429 and 503
 * retried (bounded, honouring `Retry-After`), and every fault one line that names the fix.
 */
export function createOpenAiProvider(settings: OpenAiSettings, options: { timeoutMs: number; fetch?: typeof fetch }): OpenAiProvider {
  const host = settings.baseUrl.replace(/\/+$/, '');
  let client: Promise<OpenAI> | undefined;
  let listing: Promise<{ ok: true; models: ModelListing[] } | { ok: false; fault: ModelFault }> | undefined;

  const clientOf = (): Promise<OpenAI> =>
    (client ??= import('openai').then(
      ({ default: OpenAIClient }) =>
        new OpenAIClient({
          baseURL: host,
          // a local server takes any key; a hosted one answers 401, which names OPENAI_API_KEY
          apiKey: settings.apiKey ?? 'no-key',
          maxRetries: 0,
          timeout: options.timeoutMs,
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        }),
    ));

  const list = async (): Promise<{ ok: true; models: ModelListing[] } | { ok: false; fault: ModelFault }> => {
    const deadline = new AnswerDeadline(options.timeoutMs, options.timeoutMs);
    try {
      const page = await (await clientOf()).models.list({ signal: deadline.signal });
      return { ok: true, models: page.data.map((raw) => listingOf(raw as unknown)) };
    } catch (error) {
      if (deadline.reason !== undefined)
        return { ok: false, fault: stoppedFault(deadline.reason, `the server at ${host}`, undefined, options.timeoutMs) };
      return { ok: false, fault: openAiFaultOf(error, host, undefined) };
    } finally {
      deadline.dispose();
    }
  };

  return {
    host,
    list,
    async contextLength(name) {
      listing ??= list();
      const listed = await listing;
      if (!listed.ok) {
        listing = undefined;
        // a server without /v1/models still answers chats: its window is then what the project says, or assumed
        return listed.fault.code === 'model-missing' || listed.fault.code === 'model-error' ? { ok: true } : listed;
      }
      const found = listed.models.find((model) => model.name === name);
      return { ok: true, ...(found?.contextLength === undefined ? {} : { tokens: found.contextLength }) };
    },
    async chat(request) {
      const timeoutMs = request.timeoutMs ?? options.timeoutMs;
      const deadline = new AnswerDeadline(timeoutMs, stallLimitOf(timeoutMs), request.signal);
      try {
        const openai = await clientOf();
        for (let attempt = 0; ; attempt++) {
          try {
            return await streamChat(openai, request, deadline);
          } catch (error) {
            if (deadline.reason !== undefined)
              return {
                ok: false,
                fault: stoppedFault(
                  deadline.reason,
                  `the server at ${host}`,
                  request.name,
                  deadline.reason === 'stall' ? deadline.stallMs : timeoutMs,
                ),
              };
            const status = (error as { status?: number }).status;
            if (isBusyStatus(status) && attempt < BUSY_RETRIES) {
              const headers = (error as { headers?: Headers }).headers;
              const wait = retryDelayMs(headers?.get('retry-after'), attempt);
              if (wait < deadline.leftMs && (await deadline.wait(wait))) continue;
            }
            return { ok: false, fault: openAiFaultOf(error, host, request.name) };
          }
        }
      } finally {
        deadline.dispose();
      }
    },
  };
}

/**
 * One model of a `/v1/models` answer, with its context length where the server gives it: vLLM's
 * `max_model_len`, llama-server's `meta.n_ctx_train`, LM Studio's `max_context_length`, others' `context_length`
 * or `context_window`.
 */
export function listingOf(raw: unknown): ModelListing {
  const item = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const meta = (typeof item.meta === 'object' && item.meta !== null ? item.meta : {}) as Record<string, unknown>;
  const candidates = [item.max_model_len, item.context_length, item.context_window, item.max_context_length, meta.n_ctx, meta.n_ctx_train];
  const contextLength = candidates.find((value): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0);
  return { name: String(item.id ?? ''), ...(contextLength === undefined ? {} : { contextLength }) };
}
