import type { CairnError } from '@cairn/api';
import { configError, isConfigObject as isObject, readProjectConfig } from '@cairn/api';
import type { ModelProvider } from './model-types.js';

/** The `model` section of `.cairn/config.json`: which model, on which server, with which window and limits. */
export interface ModelSettings {
  /** The model agents use unless a spawn names one (`qwen2.5-coder:7b`, `openai/NAME`). */
  default?: string;
  /** The provider of bare model names and of `cairn models` (default `ollama`). */
  provider?: ModelProvider;
  /** Ollama's address (`OLLAMA_HOST` wins when set). */
  ollamaHost?: string;
  /** The OpenAI-compatible server's base URL (`OPENAI_BASE_URL` wins when set). */
  baseUrl?: string;
  /** Its API key (`OPENAI_API_KEY` wins when set). */
  apiKey?: string;
  /** The largest window a request asks for (default 16,384; never more than the model has). */
  contextTokens?: number;
  /** The longest answer a program generation asks for (default 4,096). */
  maxOutputTokens?: number;
  temperature?: number;
  seed?: number;
  /** Deadline of one answer (ms). */
  timeoutMs?: number;
}

const KEYS = [
  'default',
  'provider',
  'ollamaHost',
  'baseUrl',
  'apiKey',
  'contextTokens',
  'maxOutputTokens',
  'temperature',
  'seed',
  'timeoutMs',
];

/**
 * Reads the `model` section of `.cairn/config.json` (no file, or no section, means the defaults). Anything
 * malformed is refused with where it is, never half-read:
 *
 * ```json
 * { "model": { "default": "openai/qwen2.5-coder-7b", "baseUrl": "http://127.0.0.1:8080/v1",
 *              "contextTokens": 16384, "maxOutputTokens": 4096, "temperature": 0.2, "seed": 7, "timeoutMs": 180000 } }
 * ```
 */
export function loadModelSettings(configPath: string): ModelSettings {
  const config = readProjectConfig(configPath, 'the model settings are described in SPEC.md §6.4');
  const raw = config?.model;
  if (raw === undefined) return {};
  if (!isObject(raw)) throw invalid('"model" must be an object');
  for (const key of Object.keys(raw)) if (!KEYS.includes(key)) throw invalid(`"model.${key}" is not a setting (${KEYS.join(', ')})`);
  const settings: ModelSettings = {};
  for (const key of ['default', 'ollamaHost', 'baseUrl', 'apiKey'] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '') throw invalid(`"model.${key}" must be a non-empty text`);
    settings[key] = value.trim();
  }
  if (raw.provider !== undefined) {
    if (raw.provider !== 'ollama' && raw.provider !== 'openai') throw invalid('"model.provider" must be "ollama" or "openai"');
    settings.provider = raw.provider;
  }
  for (const key of ['contextTokens', 'maxOutputTokens', 'timeoutMs'] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
      throw invalid(`"model.${key}" must be a whole number of at least 1`);
    settings[key] = value;
  }
  if (raw.temperature !== undefined) {
    if (typeof raw.temperature !== 'number' || !Number.isFinite(raw.temperature) || raw.temperature < 0 || raw.temperature > 2)
      throw invalid('"model.temperature" must be a number from 0 to 2');
    settings.temperature = raw.temperature;
  }
  if (raw.seed !== undefined) {
    if (typeof raw.seed !== 'number' || !Number.isSafeInteger(raw.seed) || raw.seed < 0)
      throw invalid('"model.seed" must be a whole number of at least 0');
    settings.seed = raw.seed;
  }
  return settings;
}

function invalid(message: string): CairnError {
  return configError(message, 'the model settings are described in SPEC.md §6.4');
}
