import type { ModelClientOptions } from './model-client.js';
import type { ModelSettings } from './model-settings.js';

/**
 * The model client's options for a project: what the caller passes first, then the environment
 * (`OLLAMA_HOST`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`), then `.cairn/config.json`'s `model` section.
 */
export function modelClientOptionsFor(settings: ModelSettings, overrides: { host?: string; timeoutMs?: number } = {}): ModelClientOptions {
  const env = (name: string) => (process.env[name] === undefined || process.env[name] === '' ? undefined : process.env[name]);
  const host = overrides.host ?? env('OLLAMA_HOST') ?? settings.ollamaHost;
  const timeoutMs = overrides.timeoutMs ?? settings.timeoutMs;
  const baseUrl = env('OPENAI_BASE_URL') ?? settings.baseUrl;
  const apiKey = env('OPENAI_API_KEY') ?? settings.apiKey;
  return {
    ...(host === undefined ? {} : { host }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(settings.provider === undefined ? {} : { provider: settings.provider }),
    openai: { ...(baseUrl === undefined ? {} : { baseUrl }), ...(apiKey === undefined ? {} : { apiKey }) },
  };
}
