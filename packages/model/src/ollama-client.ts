// The model client's public face inside the package: Ollama by default, OpenAI-compatible servers for `openai/NAME`.
export { createModelClient, DEFAULT_MODEL_TIMEOUT_MS, type ModelClientOptions } from './model-client.js';
export type { ChatMessage, ChatRequest, ModelAnswer, ModelClient, ModelFault, ModelListing, ModelProvider } from './model-types.js';
export { DEFAULT_OLLAMA_HOST } from './ollama-provider.js';
