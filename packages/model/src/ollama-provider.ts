import type { Ollama } from 'ollama';
import { AnswerDeadline, stallLimitOf } from './answer-deadline.js';
import type { ChatRequest, ContextLength, ModelAnswer, ModelFault, ModelListing, ProviderClient } from './model-types.js';
import { ollamaFaultOf, stoppedFault } from './ollama-faults.js';
import { BUSY_RETRIES, isBusyStatus, retryDelayMs } from './retry-after.js';

/** The address Ollama listens on unless `OLLAMA_HOST` says otherwise. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

let ollamaCode: Promise<typeof import('ollama')> | undefined;

/**
 * The official client, loaded by the first request: with its fetch polyfill it loads Node's fetch (about 25 ms),
 * which a daemon, or a command, that never asks a model need not pay for.
 */
function loadOllama(): Promise<typeof import('ollama')> {
  return (ollamaCode ??= import('ollama'));
}

/** Ollama, spoken through its official client: streamed chats with an explicit window, model facts from `/api/show`. */
export type OllamaProvider = ProviderClient;

/** The last HTTP answer a request got: how busy the server said it was. */
interface LastResponse {
  status: number;
  retryAfter: string | null;
}

/**
 * An Ollama provider that streams every answer (so a reject or a deadline aborts the request at once, and a
 * server that stalls between chunks is given up on), states the window (`num_ctx`) and output limit of every
 * request, and backs off (bounded) while Ollama says it is busy.
 */
export function createOllamaProvider(options: { host?: string; timeoutMs: number; fetch?: typeof fetch }): OllamaProvider {
  const host = normalizeOllamaHost(options.host ?? process.env.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST);
  const contexts = new Map<string, number | undefined>();

  const clientFor = async (signal: AbortSignal, last?: LastResponse): Promise<Ollama> => {
    const { Ollama: OllamaClient } = await loadOllama();
    const boundFetch: typeof fetch = async (input, init) => {
      // Node's own fetch is named only here: naming it loads it (and the client's polyfill looks for it)
      const response = await (options.fetch ?? fetch)(input, { ...init, signal });
      if (last !== undefined) {
        last.status = response.status;
        last.retryAfter = response.headers.get('retry-after');
      }
      return response;
    };
    return new OllamaClient({ host, fetch: boundFetch });
  };

  const quick = async <T>(
    model: string | undefined,
    ask: (client: Ollama) => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; fault: ModelFault }> => {
    const deadline = new AnswerDeadline(options.timeoutMs, options.timeoutMs);
    try {
      return { ok: true, value: await ask(await clientFor(deadline.signal)) };
    } catch (error) {
      if (deadline.reason !== undefined)
        return { ok: false, fault: stoppedFault(deadline.reason, `Ollama at ${host}`, model, options.timeoutMs) };
      return { ok: false, fault: ollamaFaultOf(error, host, model, options.timeoutMs) };
    } finally {
      deadline.dispose();
    }
  };

  const contextLength = async (name: string): Promise<ContextLength> => {
    if (contexts.has(name)) return { ok: true, ...tokens(contexts.get(name)) };
    const shown = await quick(name, (client) => client.show({ model: name }));
    if (!shown.ok) return shown;
    const length = contextLengthOf(shown.value.model_info);
    contexts.set(name, length);
    return { ok: true, ...tokens(length) };
  };

  return {
    host,
    contextLength,
    async list() {
      const listed = await quick(undefined, (client) => client.list());
      if (!listed.ok) return listed;
      const models: ModelListing[] = [];
      for (const model of listed.value.models) {
        const context = await contextLength(model.name);
        models.push({
          name: model.name,
          size: model.size,
          ...(context.ok && context.tokens !== undefined ? { contextLength: context.tokens } : {}),
        });
      }
      return { ok: true, models };
    },
    async chat(request) {
      const timeoutMs = request.timeoutMs ?? options.timeoutMs;
      const deadline = new AnswerDeadline(timeoutMs, stallLimitOf(timeoutMs), request.signal);
      try {
        for (let attempt = 0; ; attempt++) {
          const last: LastResponse = { status: 0, retryAfter: null };
          try {
            return await streamChat(await clientFor(deadline.signal, last), request, deadline);
          } catch (error) {
            if (deadline.reason !== undefined)
              return {
                ok: false,
                fault: stoppedFault(
                  deadline.reason,
                  `Ollama at ${host}`,
                  request.name,
                  deadline.reason === 'stall' ? deadline.stallMs : timeoutMs,
                ),
              };
            // a kept-alive connection the server closed as the request went out: nothing was answered, ask once more
            if (attempt === 0 && error instanceof UnansweredReset) continue;
            const busy = isBusyStatus((error as { status_code?: number }).status_code);
            if (busy && attempt < BUSY_RETRIES) {
              const wait = retryDelayMs(last.retryAfter, attempt);
              if (wait < deadline.leftMs && (await deadline.wait(wait))) continue;
            }
            const cause = error instanceof UnansweredReset ? error.cause : error;
            return { ok: false, fault: ollamaFaultOf(cause, host, request.name, timeoutMs) };
          }
        }
      } finally {
        deadline.dispose();
      }
    },
  };
}

/** A connection reset before the server answered anything: the request can be sent again as it is. */
class UnansweredReset extends Error {
  constructor(override readonly cause: unknown) {
    super('the connection was reset before an answer');
  }
}

function isReset(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | undefined;
  return [e?.code, e?.cause?.code].some((code) => code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE');
}

/** Sends the chat request; a reset before any answer is an `UnansweredReset`. */
async function startChat(client: Ollama, request: ChatRequest & { name: string }) {
  try {
    return await client.chat({
      model: request.name,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      stream: true,
      options: {
        num_predict: request.maxTokens,
        temperature: request.temperature,
        ...(request.contextTokens === undefined ? {} : { num_ctx: request.contextTokens }),
        ...(request.seed === undefined ? {} : { seed: request.seed }),
      },
    });
  } catch (error) {
    throw isReset(error) ? new UnansweredReset(error) : error;
  }
}

async function streamChat(client: Ollama, request: ChatRequest & { name: string }, deadline: AnswerDeadline): Promise<ModelAnswer> {
  const stream = await startChat(client, request);
  let text = '';
  let model = request.name;
  let promptTokens = 0;
  let completionTokens = 0;
  let doneReason = 'stop';
  for await (const chunk of stream) {
    deadline.touch();
    text += chunk.message?.content ?? '';
    if (chunk.model) model = chunk.model;
    if (chunk.done) {
      promptTokens = Number(chunk.prompt_eval_count ?? 0);
      completionTokens = Number(chunk.eval_count ?? 0);
      doneReason = String(chunk.done_reason ?? 'stop');
    }
  }
  // a client may end an aborted stream quietly: an answer stopped by its deadline or a reject is no answer
  if (deadline.reason !== undefined) throw new Error(`the answer was stopped (${deadline.reason})`);
  return {
    ok: true,
    text,
    model,
    promptTokens,
    completionTokens,
    doneReason,
    truncated: doneReason === 'length',
    firstTokenMs: deadline.firstTokenMs,
    totalMs: deadline.elapsedMs,
  };
}

/** `model_info["<arch>.context_length"]` of an `/api/show` answer. */
export function contextLengthOf(info: unknown): number | undefined {
  const entries = info instanceof Map ? [...info.entries()] : typeof info === 'object' && info !== null ? Object.entries(info) : [];
  for (const [key, value] of entries)
    if (typeof key === 'string' && key.endsWith('.context_length') && typeof value === 'number' && value > 0) return value;
  return undefined;
}

function tokens(length: number | undefined): { tokens?: number } {
  return length === undefined ? {} : { tokens: length };
}

/** `OLLAMA_HOST` may be `host:port` or `0.0.0.0`; the client needs a URL. */
export function normalizeOllamaHost(raw: string): string {
  let host = raw.trim();
  if (!/^https?:\/\//.test(host)) host = `http://${host}`;
  host = host.replace('://0.0.0.0', '://127.0.0.1').replace(/\/+$/, '');
  if (!/:\d+$/.test(new URL(host).host)) host = host.replace(/^(https?:\/\/[^/]+)/, '$1:11434');
  return host;
}
