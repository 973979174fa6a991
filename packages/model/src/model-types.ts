/** One chat message for the model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The servers Cairn speaks to: Ollama's own API, or the OpenAI chat-completions API. */
export type ModelProvider = 'ollama' | 'openai';

/** Why the model could not answer, with what a person can do about it. */
export interface ModelFault {
  code:
    | 'model-unreachable'
    | 'model-missing'
    | 'model-timeout'
    | 'model-error'
    | 'model-auth'
    | 'model-busy'
    | 'model-window'
    | 'cancelled';
  message: string;
  hint: string;
}

/** What one answer cost and how it came: the numbers a person needs to see why an answer was poor. */
export interface AnswerStats {
  /** Prompt tokens as the server counted them (0 when it did not say). */
  promptTokens: number;
  completionTokens: number;
  /** Why the server stopped: `stop`, `length` (the output limit), … */
  doneReason: string;
  /** From sending the request to the first token of the answer (ms). */
  firstTokenMs: number;
  /** The whole answer (ms). */
  totalMs: number;
}

/** A model's answer, or the fault that kept it from answering. */
export type ModelAnswer = ({ ok: true; text: string; model: string; truncated: boolean } & AnswerStats) | { ok: false; fault: ModelFault };

/** One chat request. `model` is the name as the agent gives it (`qwen2.5-coder:7b`, `ollama/…`, `openai/…`). */
export interface ChatRequest {
  model: string;
  messages: readonly ChatMessage[];
  maxTokens: number;
  temperature: number;
  /** The context window to ask for (Ollama's `num_ctx`). */
  contextTokens?: number;
  seed?: number;
  /** Deadline of the whole answer (ms); the client's own when absent. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A model a server offers, with its context length when the server says it. */
export interface ModelListing {
  name: string;
  contextLength?: number;
  /** Bytes on disk, when the server says. */
  size?: number;
}

/** A model's context length, as far as the server tells it. */
export type ContextLength = { ok: true; tokens?: number } | { ok: false; fault: ModelFault };

/** A model server Cairn can ask. Every fault comes back as data; nothing throws, nothing hangs. */
export interface ModelClient {
  /** Where the default provider listens (Ollama's address, or the OpenAI-compatible base URL). */
  readonly host: string;
  chat(request: ChatRequest): Promise<ModelAnswer>;
  /** The names of the models the default provider offers, or the fault. */
  listModels(): Promise<{ ok: true; models: string[] } | { ok: false; fault: ModelFault }>;
  /** The models a provider (the default one unless named) offers, with their context lengths. */
  describeModels(
    provider?: ModelProvider,
  ): Promise<{ ok: true; provider: ModelProvider; host: string; models: ModelListing[] } | { ok: false; fault: ModelFault }>;
  /** The context length of a model (asked once, then remembered). */
  contextLength(model: string): Promise<ContextLength>;
}

/** One model server spoken through its official client (Ollama's, or `openai` for OpenAI-compatible servers). */
export interface ProviderClient {
  readonly host: string;
  chat(request: ChatRequest & { name: string }): Promise<ModelAnswer>;
  contextLength(name: string): Promise<ContextLength>;
  list(): Promise<{ ok: true; models: ModelListing[] } | { ok: false; fault: ModelFault }>;
}
