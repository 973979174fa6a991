import { Ollama } from 'ollama';

/** One chat message for the model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The address Ollama listens on unless `OLLAMA_HOST` says otherwise. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** How long one answer may take, unless told otherwise (a 7B model on a CPU is slow). */
export const DEFAULT_MODEL_TIMEOUT_MS = 180_000;

/** Why the model could not answer, with what a person can do about it. */
export interface ModelFault {
  code: 'model-unreachable' | 'model-missing' | 'model-timeout' | 'model-error';
  message: string;
  hint: string;
}

/** A model's answer, or the fault that kept it from answering. */
export type ModelAnswer =
  | { ok: true; text: string; promptTokens: number; completionTokens: number; model: string; truncated: boolean }
  | { ok: false; fault: ModelFault };

/** One chat request. */
export interface ChatRequest {
  model: string;
  messages: readonly ChatMessage[];
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
}

/** A model server Cairn can ask: Ollama, through its official client. */
export interface ModelClient {
  readonly host: string;
  chat(request: ChatRequest): Promise<ModelAnswer>;
  /** The models the server has pulled, or the fault. */
  listModels(): Promise<{ ok: true; models: string[] } | { ok: false; fault: ModelFault }>;
}

/** Options of `createModelClient`. */
export interface ModelClientOptions {
  /** Ollama's address (default: `OLLAMA_HOST`, or http://127.0.0.1:11434). */
  host?: string;
  /** Deadline for one answer, connection included (ms). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * An Ollama client that never throws for a fault of the server or the network and never hangs: every
 * request has a deadline, and every fault comes back as data with a message that says what to do
 * (`cannot reach Ollama at … — start it with \`ollama serve\``, `run \`ollama pull …\``).
 */
export function createModelClient(options: ModelClientOptions = {}): ModelClient {
  const host = normalizeHost(options.host ?? process.env.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST);
  const timeoutMs = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const baseFetch = options.fetch ?? fetch;

  const clientFor = (signal?: AbortSignal): Ollama => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
    const timedFetch: typeof fetch = (input, init) => baseFetch(input, { ...init, signal: combined });
    return new Ollama({ host, fetch: timedFetch });
  };

  return {
    host,
    async chat(request) {
      const client = clientFor(request.signal);
      try {
        const response = await client.chat({
          model: request.model,
          messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
          stream: false,
          options: { num_predict: request.maxTokens, temperature: request.temperature },
        });
        const text = response.message?.content ?? '';
        return {
          ok: true,
          text,
          promptTokens: Number(response.prompt_eval_count ?? 0),
          completionTokens: Number(response.eval_count ?? 0),
          model: response.model ?? request.model,
          truncated: response.done_reason === 'length',
        };
      } catch (error) {
        return { ok: false, fault: faultOf(error, host, request.model, timeoutMs) };
      }
    },
    async listModels() {
      try {
        const list = await clientFor().list();
        return { ok: true, models: list.models.map((m) => m.name) };
      } catch (error) {
        return { ok: false, fault: faultOf(error, host, undefined, timeoutMs) };
      }
    },
  };
}

/** What a thrown error from the client or the network means for a person. */
export function faultOf(error: unknown, host: string, model: string | undefined, timeoutMs: number): ModelFault {
  const e = error as { name?: string; message?: string; status_code?: number; cause?: { code?: string; name?: string } };
  const message = String(e?.message ?? error);
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError' || (e?.name === 'AbortError' && /timeout|timed out/i.test(message))) {
    return {
      code: 'model-timeout',
      message: `${model === undefined ? 'Ollama' : `the model ${model}`} did not answer within ${Math.round(timeoutMs / 1000)} s`,
      hint: 'try a smaller model or a simpler task, or give it more time',
    };
  }
  if (e?.name === 'ResponseError') {
    if (e.status_code === 404 && model !== undefined && /not found|pull/i.test(message)) {
      return {
        code: 'model-missing',
        message: `model "${model}" is not pulled — run \`ollama pull ${model}\``,
        hint: `ollama pull ${model}`,
      };
    }
    return {
      code: 'model-error',
      message: `Ollama at ${host} answered ${e.status_code ?? 'an error'}: ${message.split('\n')[0]!.slice(0, 300)}`,
      hint: "see Ollama's own log (`ollama serve` prints it)",
    };
  }
  const code = e?.cause?.code ?? '';
  if (
    [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'ECONNRESET',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'UND_ERR_SOCKET',
      'UND_ERR_CONNECT_TIMEOUT',
    ].includes(code) ||
    /fetch failed|ECONNREFUSED/i.test(message)
  ) {
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') {
      return {
        code: 'model-error',
        message: `Ollama at ${host} dropped the connection in the middle of an answer`,
        hint: 'check that Ollama is healthy (`ollama ps`), then try again',
      };
    }
    return {
      code: 'model-unreachable',
      message: `cannot reach Ollama at ${host} — start it with \`ollama serve\``,
      hint: 'start Ollama with `ollama serve` (or set OLLAMA_HOST to where it runs)',
    };
  }
  if (error instanceof SyntaxError || /JSON/i.test(message)) {
    return {
      code: 'model-error',
      message: `Ollama at ${host} sent an answer that is not valid JSON`,
      hint: 'check that OLLAMA_HOST points at Ollama',
    };
  }
  return {
    code: 'model-error',
    message: `asking Ollama at ${host} failed: ${message.split('\n')[0]!.slice(0, 300)}`,
    hint: 'check that Ollama runs (`ollama serve`) and OLLAMA_HOST is right',
  };
}

/** `OLLAMA_HOST` may be `host:port` or `0.0.0.0`; the client needs a URL. */
function normalizeHost(raw: string): string {
  let host = raw.trim();
  if (!/^https?:\/\//.test(host)) host = `http://${host}`;
  host = host.replace('://0.0.0.0', '://127.0.0.1').replace(/\/+$/, '');
  if (!/:\d+$/.test(new URL(host).host)) host = host.replace(/^(https?:\/\/[^/]+)/, '$1:11434');
  return host;
}
