import { parseModelName } from './model-name.js';
import type { ModelClient, ModelProvider } from './model-types.js';
import { createOllamaProvider } from './ollama-provider.js';
import { createOpenAiProvider, DEFAULT_OPENAI_BASE_URL, type OpenAiProvider } from './openai-provider.js';

/** How long one answer may take, unless told otherwise (a 7B model on a CPU is slow). */
export const DEFAULT_MODEL_TIMEOUT_MS = 180_000;

/** Options of `createModelClient`. */
export interface ModelClientOptions {
  /** Ollama's address (default: `OLLAMA_HOST`, or http://127.0.0.1:11434). */
  host?: string;
  /** Deadline for one answer, connection included (ms). */
  timeoutMs?: number;
  /** The provider of bare model names and of `listModels` (default `ollama`). */
  provider?: ModelProvider;
  /** The OpenAI-compatible server (default: `OPENAI_BASE_URL` and `OPENAI_API_KEY`). */
  openai?: { baseUrl?: string; apiKey?: string };
  fetch?: typeof fetch;
}

/**
 * The model client of a project: Ollama for bare names and `ollama/NAME`, an OpenAI-compatible server for
 * `openai/NAME` (the prefix is never sent). It never throws for a fault of a server or the network and never
 * hangs: every answer is streamed under a deadline, and every fault comes back as data with a message that
 * says what to do (`cannot reach Ollama at … — start it with \`ollama serve\``).
 */
export function createModelClient(options: ModelClientOptions = {}): ModelClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const fallback = options.provider ?? 'ollama';
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const ollama = createOllamaProvider({ ...(options.host === undefined ? {} : { host: options.host }), timeoutMs, ...fetchOption });
  let openai: OpenAiProvider | undefined;
  const openAi = (): OpenAiProvider => {
    if (openai !== undefined) return openai;
    const baseUrl = options.openai?.baseUrl ?? process.env.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL;
    const apiKey = options.openai?.apiKey ?? process.env.OPENAI_API_KEY;
    openai = createOpenAiProvider({ baseUrl, ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }) }, { timeoutMs, ...fetchOption });
    return openai;
  };
  const providerOf = (model: string) => {
    const parsed = parseModelName(model, fallback);
    return { name: parsed.name, provider: parsed.provider === 'openai' ? openAi() : ollama, kind: parsed.provider };
  };
  return {
    get host() {
      return fallback === 'openai' ? openAi().host : ollama.host;
    },
    chat: (request) => {
      const { name, provider } = providerOf(request.model);
      return provider.chat({ ...request, name });
    },
    contextLength: (model) => {
      const { name, provider } = providerOf(model);
      return provider.contextLength(name);
    },
    async describeModels(kind = fallback) {
      const provider = kind === 'openai' ? openAi() : ollama;
      const listed = await provider.list();
      return listed.ok ? { ok: true, provider: kind, host: provider.host, models: listed.models } : listed;
    },
    async listModels() {
      const provider = fallback === 'openai' ? openAi() : ollama;
      const listed = await provider.list();
      return listed.ok ? { ok: true, models: listed.models.map((m) => m.name) } : listed;
    },
  };
}

/** The provider a model name is asked on. */
export function providerOfModel(model: string, fallback: ModelProvider = 'ollama'): ModelProvider {
  return parseModelName(model, fallback).provider;
}
