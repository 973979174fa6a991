// `@cairn/orchestrator/testing`: what tests and benchmarks of surfaces built on Cairn need to run the model path
// without a model: real HTTP servers on loopback that speak Ollama's API and the OpenAI chat-completions API
// with scripted answers.
export { startScriptedOllama, type ScriptedOllama, type ScriptedOllamaOptions } from './scripted-ollama.js';
export { startScriptedOpenAi, type ScriptedOpenAi, type ScriptedOpenAiOptions } from './scripted-openai.js';
export { programAnswer, type ScriptedReply, type ScriptedRequest } from './scripted-reply.js';
