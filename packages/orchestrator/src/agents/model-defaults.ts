import type { AgentSpec, ModelOptions } from '@cairn/api';
import type { ModelSettings } from '@cairn/model';
import { qualifyModelName } from '@cairn/model';

/**
 * A spec with the project's model settings under its own: the project's default model where the spawn named
 * none (`projectModel`; a program of the user's takes it for its `ask_llm` calls), the model name made explicit
 * about its provider (`openai/NAME` when the project's provider is OpenAI-compatible), and the project's window,
 * output, temperature, seed and deadline wherever the spawn did not set them.
 */
export function withModelSettings(spec: AgentSpec, settings: ModelSettings, projectModel = false): AgentSpec {
  const out: AgentSpec = { ...spec };
  const provider = settings.provider ?? 'ollama';
  if (projectModel && settings.default !== undefined) out.model = settings.default;
  if (out.model !== undefined) out.model = qualifyModelName(out.model, provider);
  const defaults: ModelOptions = {};
  for (const key of ['contextTokens', 'maxOutputTokens', 'temperature', 'seed', 'timeoutMs'] as const)
    if (settings[key] !== undefined) defaults[key] = settings[key];
  const options = { ...defaults, ...spec.modelOptions };
  if (Object.keys(options).length > 0) out.modelOptions = options;
  return out;
}
