import type { ModelProvider } from './model-types.js';

/** A model name taken apart: the server it is asked on, and the name that server knows it by. */
export interface ModelName {
  provider: ModelProvider;
  /** The name sent to the server: the prefix is never part of it. */
  name: string;
}

/**
 * Where a model name points: `openai/NAME` is an OpenAI-compatible server, `ollama/NAME` is Ollama, and a bare
 * name is the project's default provider (Ollama unless `.cairn/config.json` says otherwise).
 */
export function parseModelName(model: string, fallback: ModelProvider = 'ollama'): ModelName {
  const trimmed = model.trim();
  if (trimmed.startsWith('openai/')) return { provider: 'openai', name: trimmed.slice('openai/'.length) };
  if (trimmed.startsWith('ollama/')) return { provider: 'ollama', name: trimmed.slice('ollama/'.length) };
  return { provider: fallback, name: trimmed };
}

/** The name an agent records: bare for the default Ollama (as before), prefixed for any other provider. */
export function qualifyModelName(model: string, fallback: ModelProvider): string {
  const parsed = parseModelName(model, fallback);
  if (parsed.provider === 'ollama' && !model.trim().startsWith('ollama/')) return parsed.name;
  return `${parsed.provider}/${parsed.name}`;
}
