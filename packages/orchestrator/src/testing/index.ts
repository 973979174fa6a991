// `@cairn/orchestrator/testing`: what tests and benchmarks of surfaces built on Cairn need to run the model path
// without a model: a real HTTP server on loopback that speaks Ollama's API with scripted answers.
export { programAnswer, startScriptedOllama, type ScriptedOllama, type ScriptedReply, type ScriptedRequest } from './scripted-ollama.js';
